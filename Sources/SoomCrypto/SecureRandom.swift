import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's `RAND_bytes`.
public enum SecureRandom {
    /// `count` random bytes (`count` must be non-negative).
    ///
    /// Traps only if `RAND_bytes` fails, which means the system RNG is unusable; handing out
    /// predictable nonces or tokens instead would be far worse than stopping.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "SecureRandom.bytes: invalid count \(count)")
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        let status = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        guard status == 1 else {
            fatalError("RAND_bytes failed; the system RNG is broken: \(OpenSSLSupport.lastErrorDescription())")
        }
        return bytes
    }
}
