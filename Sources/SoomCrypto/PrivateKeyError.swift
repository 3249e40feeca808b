/// Why a PEM private key was refused by ``DevicePrivateKey/init(pem:)``.
public enum PrivateKeyError: Error, Sendable, Equatable {
    /// No readable unencrypted private key in the text (encrypted keys are not supported).
    case malformedPEM
    /// A private key of another algorithm than plain RSA.
    case notRSA
}
