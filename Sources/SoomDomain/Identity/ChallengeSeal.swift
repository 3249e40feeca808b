import Foundation

/// Seals and opens challenge IDs with the deployment's secret.
///
/// An ID is base64url of `version (1) ‖ nonce (32) ‖ expiry in ms since 1970 (8, big-endian) ‖
/// HMAC-SHA256(secret, the preceding 41 bytes) truncated to 16 bytes`. Nobody without the secret
/// can make an ID the server accepts or change its expiry; the nonce itself is plain random bytes.
public struct ChallengeSeal: Sendable {
    static let version: UInt8 = 1
    static let tagByteCount = 16
    static let sealedByteCount = 1 + Challenge.nonceByteCount + 8 + tagByteCount

    let secret: [UInt8]
    let crypto: any IdentityCrypto

    public init(secret: [UInt8], crypto: any IdentityCrypto) {
        self.secret = secret
        self.crypto = crypto
    }

    /// A challenge for `nonce` that expires at `expiresAt` (kept to whole milliseconds).
    public func seal(nonce: [UInt8], expiresAt: Date) -> Challenge {
        precondition(nonce.count == Challenge.nonceByteCount, "a nonce is \(Challenge.nonceByteCount) bytes")
        let millis = Int64((expiresAt.timeIntervalSince1970 * 1000).rounded(.down))
        var body = [Self.version] + nonce
        withUnsafeBytes(of: UInt64(bitPattern: millis).bigEndian) { body.append(contentsOf: $0) }
        let sealed = body + self.tag(body)
        return Challenge(id: Base64URL.encode(sealed), nonceBytes: nonce, expiresAt: Date(timeIntervalSince1970: Double(millis) / 1000))
    }

    /// The challenge an ID describes, or nil when the ID is malformed or was not sealed with this secret.
    /// Says nothing about expiry or earlier use.
    public func open(_ id: String) -> Challenge? {
        // Bound the work before decoding: a sealed ID is 76 characters.
        guard id.utf8.count <= 128, let sealed = Base64URL.decode(id), sealed.count == Self.sealedByteCount,
            sealed[0] == Self.version
        else { return nil }
        let body = Array(sealed[0..<(Self.sealedByteCount - Self.tagByteCount)])
        guard Self.constantTimeEqual(self.tag(body), Array(sealed[body.count...])) else { return nil }
        let nonce = Array(body[1...Challenge.nonceByteCount])
        let millis = body[(1 + Challenge.nonceByteCount)...].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Challenge(id: id, nonceBytes: nonce, expiresAt: Date(timeIntervalSince1970: Double(Int64(bitPattern: millis)) / 1000))
    }

    private func tag(_ body: [UInt8]) -> [UInt8] {
        Array(self.crypto.hmacSHA256(body, key: self.secret).prefix(Self.tagByteCount))
    }

    /// Compares MACs without revealing through timing how many leading bytes matched.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
