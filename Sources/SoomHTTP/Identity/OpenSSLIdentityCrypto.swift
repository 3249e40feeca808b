import SoomCrypto
import SoomDomain

/// The domain's `IdentityCrypto` port, implemented with OpenSSL 3 (`SoomCrypto`).
struct OpenSSLIdentityCrypto: IdentityCrypto {
    func deviceKey(pem: String) throws(SoomError) -> any DeviceKey {
        do {
            return OpenSSLDeviceKey(key: try DevicePublicKey(pem: pem))
        } catch {
            throw SoomError.invalidPublicKey(Self.message(for: error))
        }
    }

    func randomBytes(_ count: Int) -> [UInt8] { SecureRandom.bytes(count) }

    func sha256(_ bytes: [UInt8]) -> [UInt8] { SHA256Digest.hash(bytes) }

    static func message(for error: PublicKeyError) -> String {
        switch error {
        case .malformedPEM: "publicKey must be one PEM block: BEGIN PUBLIC KEY (SubjectPublicKeyInfo) or BEGIN RSA PUBLIC KEY (PKCS#1)."
        case .notRSA: "publicKey must be an RSA key."
        case .unsupportedSize(let bits): "publicKey has \(bits) bits; RSA keys of 2048 to 4096 bits are accepted."
        case .unsupportedExponent: "publicKey must use the public exponent 65537."
        }
    }
}

/// A parsed device key; verification maps the contract's algorithm names onto OpenSSL's schemes.
struct OpenSSLDeviceKey: DeviceKey {
    let key: DevicePublicKey

    var fingerprint: [UInt8] { self.key.fingerprint }
    var der: [UInt8] { self.key.subjectPublicKeyInfoDER }

    func verifies(_ signature: [UInt8], message: [UInt8], algorithm: SignatureAlgorithm) -> Bool {
        let scheme: SignatureScheme =
            switch algorithm {
            case .rsaPSSSHA256: .rsaPSSSHA256
            case .rsaPKCS1v15SHA256: .rsaPKCS1v15SHA256
            }
        return self.key.isValidSignature(signature, for: message, scheme: scheme)
    }
}
