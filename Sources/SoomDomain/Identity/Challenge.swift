import Foundation

/// A single-use nonce a device signs to prove it holds its private key.
public struct Challenge: Sendable, Equatable {
    /// Challenges live five minutes.
    public static let lifetime: TimeInterval = 5 * 60
    /// Nonces are 32 random bytes.
    public static let nonceByteCount = 32

    public let id: UUID
    /// Base64url of 32 random bytes, signed exactly as sent.
    public let nonce: String
    public let expiresAt: Date

    public init(id: UUID, nonce: String, expiresAt: Date) {
        self.id = id
        self.nonce = nonce
        self.expiresAt = expiresAt
    }

    public func isUsable(at now: Date) -> Bool { now < self.expiresAt }
}
