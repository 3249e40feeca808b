/// Why a PEM public key was refused by ``DevicePublicKey/init(pem:)``.
public enum PublicKeyError: Error, Sendable, Equatable {
    /// Not exactly one PEM block labelled `PUBLIC KEY` or `RSA PUBLIC KEY`, invalid base64,
    /// text outside the block, or DER that does not parse completely and canonically.
    case malformedPEM
    /// A well-formed key of another algorithm (EC, Ed25519, RSA-PSS-restricted, …).
    /// Only plain `rsaEncryption` keys are accepted.
    case notRSA
    /// The RSA modulus is outside 2048...4096 bits.
    case unsupportedSize(bits: Int)
    /// The public exponent is not 65537.
    case unsupportedExponent
}
