import SoomCrypto
import SoomDomain

/// The domain's `ContentDigest` port, implemented with OpenSSL 3 (`SoomCrypto`).
public enum OpenSSLContentDigest {
    /// SHA-256 in lower-case hex: uploads' `ETag`s, the built-in files' entity tags and version.
    public static let sha256Hex: ContentDigest = { bytes in
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in SHA256Digest.hash(bytes) {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
