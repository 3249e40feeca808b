import Foundation

/// A one-time code that moves an account to a new device: 16 Crockford base32 characters
/// (80 random bits), shown as `ABCD-EFGH-JKMN-PQRS`. Lives 10 minutes; only its hash is stored.
public enum TransferCode {
    public static let lifetime: TimeInterval = 10 * 60
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    static let length = 16

    /// A new code from 10 random bytes.
    public static func make(from randomBytes: [UInt8]) -> String {
        precondition(randomBytes.count == 10, "80 bits make 16 base32 characters")
        var bits = 0
        var value = 0
        var characters: [Character] = []
        for byte in randomBytes {
            value = (value << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                characters.append(Self.alphabet[(value >> bits) & 31])
            }
            value &= (1 << bits) - 1
        }
        return stride(from: 0, to: Self.length, by: 4).map { String(characters[$0..<$0 + 4]) }.joined(separator: "-")
    }

    /// The canonical form people may have typed loosely: case, dashes and spaces ignored,
    /// O read as 0 and I/L as 1. Nil when it cannot be a code.
    public static func canonical(_ typed: String) -> String? {
        var result = ""
        for character in typed.uppercased() where character != "-" && character != " " {
            let mapped: Character =
                switch character {
                case "O": "0"
                case "I", "L": "1"
                default: character
                }
            guard Self.alphabet.contains(mapped) else { return nil }
            result.append(mapped)
        }
        return result.count == Self.length ? result : nil
    }
}
