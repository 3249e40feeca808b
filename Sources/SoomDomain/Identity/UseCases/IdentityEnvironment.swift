import Foundation

/// What every identity use case works with: storage, cryptography, recently checked sessions
/// and the time.
public struct IdentityEnvironment: Sendable {
    public let repository: any IdentityRepository
    public let crypto: any IdentityCrypto
    /// Sessions `Authenticate` may answer from memory (`InvalidatingIdentityRepository` says
    /// what drops them). Off (lifetime 0) unless given.
    public let sessions: SessionCache
    /// The operators' switches; nicknames are checked against their refused words.
    public let switches: OperatorSwitches
    public let now: @Sendable () -> Date

    public init(
        repository: any IdentityRepository, crypto: any IdentityCrypto, sessions: SessionCache = SessionCache(lifetime: 0),
        feedPages: FeedPageCache = FeedPageCache(lifetime: 0), switches: OperatorSwitches = OperatorSwitches(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.repository = InvalidatingIdentityRepository(base: repository, sessions: sessions, feedPages: feedPages)
        self.crypto = crypto
        self.sessions = sessions
        self.switches = switches
        self.now = now
    }

    /// A fresh session: the token for the client, the hash for storage.
    func makeSession(at now: Date) -> (SessionToken, StoredSession) {
        let token = Base64URL.encode(self.crypto.randomBytes(SessionToken.byteCount))
        let expiresAt = now.addingTimeInterval(SessionToken.lifetime)
        return (SessionToken(token: token, expiresAt: expiresAt), StoredSession(tokenHash: self.hashToken(token), expiresAt: expiresAt))
    }

    func hashToken(_ token: some StringProtocol) -> [UInt8] {
        self.crypto.sha256(Array(token.utf8))
    }
}

/// An account together with a new session for it.
public struct SignedInAccount: Sendable, Equatable {
    public let account: Account
    public let session: SessionToken

    public init(account: Account, session: SessionToken) {
        self.account = account
        self.session = session
    }
}
