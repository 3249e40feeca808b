import Foundation

/// A bearer token: 32 random bytes, base64url. The server keeps only its SHA-256.
public struct SessionToken: Sendable, Equatable {
    /// Sessions live 24 hours; clients renew by signing a new login challenge.
    public static let lifetime: TimeInterval = 24 * 60 * 60
    public static let byteCount = 32
    /// Length of the base64url text of 32 bytes.
    public static let textLength = 43

    /// The secret handed to the client, once.
    public let token: String
    public let expiresAt: Date

    public init(token: String, expiresAt: Date) {
        self.token = token
        self.expiresAt = expiresAt
    }

    /// Whether `text` could be a token at all (saves a database round trip for garbage).
    public static func isWellFormed(_ text: Substring) -> Bool {
        text.utf8.count == Self.textLength
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
            }
    }
}

/// A session as stored: the token's hash and its expiry.
public struct StoredSession: Sendable, Equatable {
    public let tokenHash: [UInt8]
    public let expiresAt: Date

    public init(tokenHash: [UInt8], expiresAt: Date) {
        self.tokenHash = tokenHash
        self.expiresAt = expiresAt
    }
}
