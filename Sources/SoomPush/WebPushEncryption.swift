import Crypto
import Foundation

/// RFC 8291 message encryption for Web Push (`Content-Encoding: aes128gcm`, RFC 8188): the
/// payload can be read only by the browser that subscribed (its `p256dh` key and `auth` secret),
/// not by the push service that carries it.
///
/// One record: `salt (16) ‖ rs = 4096 (4) ‖ idlen = 65 (1) ‖ the sender's ephemeral public key
/// (65)`, then AES-128-GCM of the payload followed by the last-record delimiter `0x02`. A new
/// ephemeral key and salt for every message.
public enum WebPushEncryption {
    /// The record size written in the header; a payload must fit one record.
    public static let recordSize = 4096
    /// The longest payload RFC 8291 §4 allows: the whole body (86-byte header, payload, delimiter,
    /// 16-byte tag) within 4,096 bytes, which every push service must accept.
    public static let maximumPayload = 3993

    public struct PayloadTooLarge: Error {}

    /// The browser's key from its `p256dh` bytes; throws unless they are a point on P-256.
    static func browserKey(_ p256dh: [UInt8]) throws -> P256.KeyAgreement.PublicKey {
        try P256.KeyAgreement.PublicKey(x963Representation: p256dh)
    }

    /// - Parameters:
    ///   - p256dh: the browser's public key, 65 bytes uncompressed.
    ///   - auth: the browser's 16-byte authentication secret.
    ///   - senderKey, salt: fresh for every message; given only to check RFC 8291's example.
    public static func encrypt(
        _ payload: [UInt8], p256dh: [UInt8], auth: [UInt8], senderKey: P256.KeyAgreement.PrivateKey = .init(),
        salt: [UInt8] = Array(SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) })
    ) throws -> [UInt8] {
        guard payload.count <= Self.maximumPayload else { throw PayloadTooLarge() }
        let browserKey = try Self.browserKey(p256dh)
        let senderPublic = Array(senderKey.publicKey.x963Representation)
        let shared = try senderKey.sharedSecretFromKeyAgreement(with: browserKey)
        // IKM = HKDF(salt = auth, ikm = ECDH secret, info = "WebPush: info" ‖ 0 ‖ ua_public ‖ as_public, 32).
        let keyInfo = Array("WebPush: info".utf8) + [0] + p256dh + senderPublic
        let ikm = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: auth, sharedInfo: keyInfo, outputByteCount: 32)
        let cek = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        let sealed = try AES.GCM.seal(
            payload + [2], using: cek, nonce: try AES.GCM.Nonce(data: nonce.withUnsafeBytes { Data($0) }))
        var body: [UInt8] = []
        body.reserveCapacity(86 + payload.count + 17)
        body += salt
        body += [0, 0, 0x10, 0x00]  // 4096, big-endian
        body.append(UInt8(senderPublic.count))
        body += senderPublic
        body += sealed.ciphertext
        body += sealed.tag
        return body
    }
}
