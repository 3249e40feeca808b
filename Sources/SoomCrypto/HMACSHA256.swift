import COpenSSL

/// HMAC-SHA256 through OpenSSL (`EVP_Q_mac`).
public enum HMACSHA256 {
    /// Length of an HMAC-SHA256 tag in bytes.
    public static let byteCount = 32

    /// The 32-byte HMAC-SHA256 of `message` under `key`.
    public static func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        var tag = [UInt8](repeating: 0, count: byteCount)
        var length = 0
        let result = OpenSSLSupport.withNonNullBytes(key) { keyBytes, keyCount in
            OpenSSLSupport.withNonNullBytes(message) { messageBytes, messageCount in
                tag.withUnsafeMutableBufferPointer { output in
                    EVP_Q_mac(nil, "HMAC", nil, "SHA256", nil, keyBytes, keyCount, messageBytes, messageCount, output.baseAddress, byteCount, &length)
                }
            }
        }
        // Like hashing, an in-memory MAC fails only when OpenSSL cannot allocate or load SHA-256 at all.
        guard result != nil, length == byteCount else {
            fatalError("EVP_Q_mac(HMAC-SHA256) failed: \(OpenSSLSupport.lastErrorDescription())")
        }
        return tag
    }
}
