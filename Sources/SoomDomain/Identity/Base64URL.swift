import Foundation

/// Base64url without padding (RFC 4648 §5): nonces, challenge IDs and tokens travel in it.
///
/// Foundation does the base64; only the two alphabet differences and the padding are handled here,
/// byte by byte (every challenge and login goes through this, and `replacingOccurrences` bridges
/// through `NSString`).
public enum Base64URL {
    public static func encode(_ bytes: [UInt8]) -> String {
        var text = Array(Data(bytes).base64EncodedString().utf8)
        while text.last == UInt8(ascii: "=") { text.removeLast() }
        for index in text.indices {
            switch text[index] {
            case UInt8(ascii: "+"): text[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): text[index] = UInt8(ascii: "_")
            default: break
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of base64url text without padding; nil for anything else (padding, `+`, `/`, spaces).
    public static func decode(_ text: String) -> [UInt8]? {
        var standard: [UInt8] = []
        standard.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                standard.append(byte)
            case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
            default: return nil
            }
        }
        if standard.count % 4 == 1 { return nil }
        while standard.count % 4 != 0 { standard.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(standard)).map { [UInt8]($0) }
    }
}
