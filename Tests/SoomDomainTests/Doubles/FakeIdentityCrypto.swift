import Foundation
import SoomDomain
import Synchronization

/// Cryptography stand-in for use-case tests: a "key" is the text `fake-key:<name>`, and a valid
/// signature is `signed:<name>:` followed by the message. Hashing is deterministic, random bytes
/// are counted so tests can predict them.
final class FakeIdentityCrypto: IdentityCrypto {
    private let counter = Mutex<UInt8>(0)

    struct Key: DeviceKey {
        let name: String
        var fingerprint: [UInt8] { FakeIdentityCrypto.digest(Array(self.name.utf8)) }
        var der: [UInt8] { Array("der:\(self.name)".utf8) }

        func verifies(_ signature: [UInt8], message: [UInt8], algorithm: SignatureAlgorithm) -> Bool {
            signature == Self.sign(message, by: self.name)
        }

        static func sign(_ message: [UInt8], by name: String) -> [UInt8] {
            Array("signed:\(name):".utf8) + message
        }
    }

    func deviceKey(pem: String) throws(SoomError) -> any DeviceKey {
        guard pem.hasPrefix("fake-key:"), pem.count > 9 else { throw SoomError.invalidPublicKey("not a fake key") }
        return Key(name: String(pem.dropFirst(9)))
    }

    func deviceKey(der: [UInt8]) throws(SoomError) -> any DeviceKey {
        let text = String(decoding: der, as: UTF8.self)
        guard text.hasPrefix("der:"), text.count > 4 else { throw SoomError.invalidPublicKey("not a fake key's DER") }
        return Key(name: String(text.dropFirst(4)))
    }

    func randomBytes(_ count: Int) -> [UInt8] {
        let seed = self.counter.withLock { value in
            value &+= 1
            return value
        }
        return (0..<count).map { UInt8(truncatingIfNeeded: $0) &+ seed }
    }

    func sha256(_ bytes: [UInt8]) -> [UInt8] { Self.digest(bytes) }

    /// Keyed, so a seal made with another key does not open (not cryptographic).
    func hmacSHA256(_ message: [UInt8], key: [UInt8]) -> [UInt8] { Self.digest(key + [0] + message) }

    /// 32 bytes of FNV-1a variants: stable and collision-free enough for tests (not cryptographic).
    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        (0..<4).flatMap { lane -> [UInt8] in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325 &+ UInt64(lane)
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01B3
            }
            return withUnsafeBytes(of: hash.bigEndian, Array.init)
        }
    }
}

/// A clock tests can move.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))

    var now: Date { self.current.withLock { $0 } }

    func advance(by interval: TimeInterval) {
        self.current.withLock { $0 = $0.addingTimeInterval(interval) }
    }
}

/// A use-case world: in-memory storage, fake crypto, a movable clock.
struct World {
    let repository = InMemoryIdentityRepository()
    let clock = TestClock()
    let crypto = FakeIdentityCrypto()
    /// Off unless a test passes one (and resumes it, as the listener would).
    var sessions = SessionCache(lifetime: 0)
    /// The operators' switches (no refused words unless a test sets some).
    let switches = OperatorSwitches()
    var environment: IdentityEnvironment {
        IdentityEnvironment(
            repository: self.repository, crypto: self.crypto, sessions: self.sessions, switches: self.switches, now: { [clock] in clock.now })
    }

    /// Issues a challenge and signs it as device `name` for `purpose`.
    func proof(_ name: String, _ purpose: SignaturePurpose, algorithm: SignatureAlgorithm = .rsaPSSSHA256) async throws -> DeviceProof {
        let challenge = try await IssueChallenge(self.environment)()
        let signature = FakeIdentityCrypto.Key.sign(purpose.message(nonce: challenge.nonce), by: name)
        return DeviceProof(
            publicKey: "fake-key:\(name)", algorithm: algorithm.rawValue, challengeID: challenge.id,
            signature: Data(signature).base64EncodedString())
    }

    /// Issues a challenge and signs it as device `name` for `purpose`, without sending the key: the
    /// proof a signed-in device gives for a transfer code or a withdrawal.
    func accountProof(_ name: String, _ purpose: SignaturePurpose) async throws -> AccountProof {
        let proof = try await self.proof(name, purpose)
        return AccountProof(algorithm: proof.algorithm, challengeID: proof.challengeID, signature: proof.signature)
    }

    @discardableResult
    func register(_ name: String, nickname: String? = nil) async throws -> SignedInAccount {
        try await RegisterAccount(self.environment)(.init(proof: try await self.proof(name, .register), nickname: nickname, profileImage: nil))
    }

    func caller(_ signedIn: SignedInAccount) async throws -> Authenticate.Caller {
        try await Authenticate(self.environment)(bearer: Substring(signedIn.session.token))
    }
}
