import COpenSSL

/// SHA-256 through OpenSSL (`EVP_Digest`).
public enum SHA256Digest {
    /// Length of a SHA-256 digest in bytes.
    public static let byteCount = 32

    /// The 32-byte SHA-256 digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let status = OpenSSLSupport.withNonNullBytes(bytes) { input, count in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input, count, output.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        // Hashing in memory can only fail if OpenSSL cannot allocate or load SHA-256 at all;
        // there is no sensible way to continue without a hash function.
        guard status == 1, length == UInt32(byteCount) else {
            fatalError("EVP_Digest(SHA-256) failed: \(OpenSSLSupport.lastErrorDescription())")
        }
        return digest
    }

    /// The 32-byte SHA-256 digest of the UTF-8 encoding of `string`.
    public static func hash(_ string: String) -> [UInt8] {
        hash(Array(string.utf8))
    }
}
