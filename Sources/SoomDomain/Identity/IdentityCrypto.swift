/// A device's public key, parsed and checked (RSA 2048–4096 bits, e = 65537).
public protocol DeviceKey: Sendable {
    /// SHA-256 of the SubjectPublicKeyInfo DER: the account's identity.
    var fingerprint: [UInt8] { get }
    /// SubjectPublicKeyInfo DER, what the server stores.
    var der: [UInt8] { get }
    /// Whether `signature` signs `message` under `algorithm` with this key. Never throws.
    func verifies(_ signature: [UInt8], message: [UInt8], algorithm: SignatureAlgorithm) -> Bool
}

/// The cryptography identity needs. Implemented over OpenSSL; faked in unit tests.
public protocol IdentityCrypto: Sendable {
    /// Parses a PEM public key (`BEGIN PUBLIC KEY` or `BEGIN RSA PUBLIC KEY`).
    /// - Throws: `SoomError` `invalid_public_key` for anything else.
    func deviceKey(pem: String) throws(SoomError) -> any DeviceKey
    /// Parses a stored key: the SubjectPublicKeyInfo DER that `DeviceKey.der` gave.
    /// - Throws: `SoomError` `invalid_public_key` when it is not one.
    func deviceKey(der: [UInt8]) throws(SoomError) -> any DeviceKey
    /// Cryptographically secure random bytes.
    func randomBytes(_ count: Int) -> [UInt8]
    func sha256(_ bytes: [UInt8]) -> [UInt8]
    /// HMAC-SHA256 of `message` under `key` (32 bytes).
    func hmacSHA256(_ message: [UInt8], key: [UInt8]) -> [UInt8]
}
