import Foundation
import Hummingbird
import NIOCore
import SoomDomain

extension Request {
    /// JSON bodies larger than this are refused before decoding.
    static let maximumJSONBodySize = 64 * 1024

    /// Decodes the JSON body, enforcing the contract's limits.
    /// - Throws: `413 payload_too_large` past 64 KiB (while streaming, not after buffering), and
    ///   `400 invalid_request` naming the field for malformed JSON or a wrong type.
    func decodeJSON<Body: Decodable>(as type: Body.Type, allowEmpty: Bool = false) async throws -> Body? {
        let buffer: ByteBuffer
        do {
            buffer = try await self.body.collect(upTo: Self.maximumJSONBodySize)
        } catch is NIOTooManyBytesError {
            throw APIError.payloadTooLarge(limit: Self.maximumJSONBodySize)
        }
        if buffer.readableBytes == 0 || buffer.readableBytesView.allSatisfy({ [0x20, 0x0A, 0x0D, 0x09].contains($0) }) {
            if allowEmpty { return nil }
            throw SoomError.invalidRequest("A JSON body is required.")
        }
        if Self.nestingDepth(of: buffer.readableBytesView) > Self.maximumJSONNesting {
            throw SoomError.invalidRequest("The body is not valid JSON.")
        }
        do {
            return try JSON.decoder.decode(Body.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw SoomError.decoding(error)
        } catch let error as SoomError {
            throw error
        }
    }

    /// No request body of the contract nests deeper than a few levels; deeper ones are refused
    /// before Foundation's recursive parser walks them on a request's small stack.
    static let maximumJSONNesting = 32

    /// The deepest nesting of arrays and objects in `bytes`, brackets inside strings not counted.
    static func nestingDepth(of bytes: ByteBufferView) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    /// Decodes a JSON body that must be present.
    func decodeJSON<Body: Decodable>(as type: Body.Type) async throws -> Body {
        try await self.decodeJSON(as: type, allowEmpty: false)!
    }
}

extension SoomError {
    /// `400 invalid_request` for a body that is not the expected JSON, naming the field at fault.
    static func decoding(_ error: DecodingError) -> SoomError {
        func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String? {
            let keys = codingPath + (last.map { [$0] } ?? [])
            let text = keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return text.isEmpty ? nil : text.replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let field = path(context.codingPath, key)
            return .invalidRequest("The field '\(field ?? key.stringValue)' is required.", field: field)
        case .typeMismatch(let type, let context):
            let field = path(context.codingPath)
            return .invalidRequest("The field '\(field ?? "body")' must be \(Self.describe(type)).", field: field)
        case .valueNotFound(let type, let context):
            let field = path(context.codingPath)
            return .invalidRequest("The field '\(field ?? "body")' must be \(Self.describe(type)), not null.", field: field)
        case .dataCorrupted(let context):
            let field = path(context.codingPath)
            if let field { return .invalidRequest("The field '\(field)' is malformed.", field: field) }
            return .invalidRequest("The body is not valid JSON.")
        @unknown default:
            return .invalidRequest("The body is not valid JSON.")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Double.Type: "a number"
        default: String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
