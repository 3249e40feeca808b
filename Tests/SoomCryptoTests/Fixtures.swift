import Foundation
import Testing

/// Reads the committed fixture files in `Fixtures/` (made by `Fixtures/generate.sh`) straight from
/// disk next to this source file, so Package.swift needs no resource declarations.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    /// The signed message, as bytes (the file has no trailing newline).
    static func message() throws -> [UInt8] {
        Array(try text("message.txt").utf8)
    }

    /// A base64 signature file, decoded.
    static func signature(_ name: String) throws -> [UInt8] {
        let encoded = try text(name).trimmingCharacters(in: .whitespacesAndNewlines)
        return try #require(Data(base64Encoded: encoded).map { [UInt8]($0) }, "bad base64 in \(name)")
    }

    /// Lower-case hex, for comparing with `sha256sum` output.
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
