import Foundation

/// A single-use nonce a device signs to prove it holds its private key.
///
/// Issuing a challenge writes nothing: its ID is the nonce and the expiry sealed with the
/// deployment's secret (see `ChallengeSeal`), so any server instance can open it. Single use is
/// enforced when it is spent: the nonce is recorded as used in the same statement or transaction
/// as the change it authorises, and a second use finds it there.
public struct Challenge: Sendable, Equatable {
    /// Challenges live five minutes.
    public static let lifetime: TimeInterval = 5 * 60
    /// Nonces are 32 random bytes.
    public static let nonceByteCount = 32

    /// Opaque to clients: the sealed nonce and expiry (base64url).
    public let id: String
    /// The 32 random bytes.
    public let nonceBytes: [UInt8]
    /// Whole milliseconds, as sealed into the ID.
    public let expiresAt: Date

    public init(id: String, nonceBytes: [UInt8], expiresAt: Date) {
        self.id = id
        self.nonceBytes = nonceBytes
        self.expiresAt = expiresAt
    }

    /// Base64url of the 32 random bytes: what the device signs, exactly as sent.
    public var nonce: String { Base64URL.encode(self.nonceBytes) }

    public func isUsable(at now: Date) -> Bool { now < self.expiresAt }
}
