import SoomCrypto
import SoomDomain
import Synchronization

/// The domain's `IdentityCrypto` port, implemented with OpenSSL 3 (`SoomCrypto`).
public struct OpenSSLIdentityCrypto: IdentityCrypto {
    /// Parsed keys by their PEM text. OpenSSL 3 takes about 200 µs to decode and check a key,
    /// ten times a signature check; a device signs in with the same key again and again.
    private let keys = KeyCache(capacity: 4096)

    public init() {}

    public func deviceKey(pem: String) throws(SoomError) -> any DeviceKey {
        if let cached = self.keys[pem] { return cached }
        do {
            let key = OpenSSLDeviceKey(key: try DevicePublicKey(pem: pem))
            self.keys[pem] = key
            return key
        } catch {
            throw SoomError.invalidPublicKey(Self.message(for: error))
        }
    }

    /// Not cached: only the two signed account changes (transfer code, withdrawal) read a stored key.
    public func deviceKey(der: [UInt8]) throws(SoomError) -> any DeviceKey {
        do {
            return OpenSSLDeviceKey(key: try DevicePublicKey(subjectPublicKeyInfoDER: der))
        } catch {
            throw SoomError.invalidPublicKey(Self.message(for: error))
        }
    }

    public func randomBytes(_ count: Int) -> [UInt8] { SecureRandom.bytes(count) }

    public func sha256(_ bytes: [UInt8]) -> [UInt8] { SHA256Digest.hash(bytes) }

    public func hmacSHA256(_ message: [UInt8], key: [UInt8]) -> [UInt8] { HMACSHA256.authenticationCode(for: message, key: key) }

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

/// A bounded map of valid keys (only keys that parsed are kept); the oldest entries go first.
final class KeyCache: Sendable {
    private struct Storage {
        var keys: [String: OpenSSLDeviceKey] = [:]
        var order: [String] = []
        var next = 0
    }

    private let capacity: Int
    private let storage = Mutex(Storage())

    init(capacity: Int) {
        self.capacity = capacity
    }

    subscript(pem: String) -> OpenSSLDeviceKey? {
        get { self.storage.withLock { $0.keys[pem] } }
        set {
            guard let newValue else { return }
            self.storage.withLock { storage in
                guard storage.keys[pem] == nil else { return }
                if storage.order.count < self.capacity {
                    storage.order.append(pem)
                } else {
                    storage.keys[storage.order[storage.next]] = nil
                    storage.order[storage.next] = pem
                    storage.next = (storage.next + 1) % self.capacity
                }
                storage.keys[pem] = newValue
            }
        }
    }
}
