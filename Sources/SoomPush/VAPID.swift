import Crypto
import Foundation
import JWTKit
import SoomDomain
import Synchronization

/// The server's identity to push services (RFC 8292): a P-256 key pair. Browsers subscribe with
/// its public key (`GET /v1/push/vapid-public-key`), and every push carries
/// `Authorization: vapid t=<JWT>, k=<public key>`, the JWT signed with ES256 and naming the
/// endpoint's origin (`aud`), an expiry 12 hours ahead (`exp`) and the operator's contact (`sub`).
/// A token is reused for its origin for an hour, so a thousand pushes to one service sign once.
public final class VAPID: Sendable {
    public let publicKey: String
    let subject: String
    private let keys: JWTKeyCollection
    private let tokens = Mutex<[String: (token: String, until: Date)]>([:])

    /// - Parameter subject: `mailto:` or `https:` contact for the push services' operators.
    public init(privateKey: P256.Signing.PrivateKey, subject: String) async throws {
        self.publicKey = Base64URL.encode(Array(privateKey.publicKey.x963Representation))
        self.subject = subject
        self.keys = JWTKeyCollection()
        await self.keys.add(ecdsa: try ES256PrivateKey(backing: privateKey))
    }

    struct Claims: JWTPayload {
        let aud: AudienceClaim
        let exp: ExpirationClaim
        let sub: SubjectClaim

        func verify(using algorithm: some JWTAlgorithm) throws {
            try self.exp.verifyNotExpired()
        }
    }

    /// The `Authorization` header's value for a push to `origin` (`https://host[:port]`).
    public func authorization(for origin: String, now: Date = Date()) async throws -> String {
        if let kept = self.tokens.withLock({ $0[origin] }), kept.until > now {
            return "vapid t=\(kept.token), k=\(self.publicKey)"
        }
        let claims = Claims(aud: .init(value: origin), exp: .init(value: now.addingTimeInterval(12 * 3600)), sub: .init(value: self.subject))
        let token = try await self.keys.sign(claims)
        self.tokens.withLock { $0[origin] = (token, now.addingTimeInterval(3600)) }
        return "vapid t=\(token), k=\(self.publicKey)"
    }
}

/// The server's VAPID key, loaded once on first use: the operator's (`SOOM_VAPID_PRIVATE_KEY`) or
/// the one the first instance made and stored (`PushRepository.vapidKey`), which every instance
/// then shares.
public actor VAPIDKeeper {
    let load: @Sendable () async throws -> P256.Signing.PrivateKey
    let subject: String
    private var loading: Task<VAPID, any Error>?

    public init(subject: String, load: @escaping @Sendable () async throws -> P256.Signing.PrivateKey) {
        self.subject = subject
        self.load = load
    }

    /// The operator's key in PEM, or the stored one made on first use.
    public init(subject: String, pem: String?, repository: any PushRepository) throws {
        if let pem {
            let key = try P256.Signing.PrivateKey(pemRepresentation: pem)
            self.init(subject: subject) { key }
        } else {
            self.init(subject: subject) {
                let raw = try await repository.vapidKey { Array(P256.Signing.PrivateKey().rawRepresentation) }
                return try P256.Signing.PrivateKey(rawRepresentation: raw)
            }
        }
    }

    /// Whether `pem` is a P-256 private key.
    public static func isPrivateKey(pem: String) -> Bool {
        (try? P256.Signing.PrivateKey(pemRepresentation: pem)) != nil
    }

    /// The key; callers at the same moment share one load, and a failed load is tried again by the next.
    public func current() async throws -> VAPID {
        if let loading { return try await loading.value }
        let (load, subject) = (self.load, self.subject)
        let task = Task { try await VAPID(privateKey: try await load(), subject: subject) }
        self.loading = task
        do {
            return try await task.value
        } catch {
            self.loading = nil
            throw error
        }
    }
}
