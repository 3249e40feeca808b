import Foundation

/// A single PEM block (RFC 7468): its label and the DER bytes of its base64 body.
///
/// Parsing is deliberately strict: the text must be exactly one block, optionally surrounded by
/// whitespace, with nothing else around it and no headers inside it. A key is an identity, so we
/// would rather refuse an odd encoding than guess which of two blocks the client meant.
struct PEMBlock: Sendable, Equatable {
    let label: String
    let der: [UInt8]

    /// Returns nil unless `text` is exactly one well-formed PEM block with a non-empty body.
    init?(parsing text: String) {
        // Splitting on `isNewline` covers LF, CRLF (one Character in Swift) and lone CR.
        let lines = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        guard lines.count >= 3,
            let label = Self.label(of: lines[0], boundary: "BEGIN"),
            Self.label(of: lines[lines.count - 1], boundary: "END") == label
        else { return nil }

        // The body may contain only the base64 alphabet; this rejects a second block
        // (its "-----" lines), RFC 1421 headers ("Proc-Type: …") and any stray text.
        var body = ""
        for line in lines[1..<(lines.count - 1)] {
            for scalar in line.unicodeScalars {
                if scalar == " " || scalar == "\t" { continue }
                guard Self.isBase64(scalar) else { return nil }
                body.unicodeScalars.append(scalar)
            }
        }
        guard !body.isEmpty, let data = Data(base64Encoded: body), !data.isEmpty else { return nil }
        self.label = label
        self.der = [UInt8](data)
    }

    /// The label of a `-----BEGIN X-----` / `-----END X-----` line, or nil if the line is not one.
    private static func label(of line: String, boundary: String) -> String? {
        let prefix = "-----\(boundary) "
        let suffix = "-----"
        guard line.hasPrefix(prefix), line.hasSuffix(suffix),
            line.count > prefix.count + suffix.count
        else { return nil }
        return String(line.dropFirst(prefix.count).dropLast(suffix.count))
    }

    private static func isBase64(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "+", "/", "=": return true
        default: return false
        }
    }
}
