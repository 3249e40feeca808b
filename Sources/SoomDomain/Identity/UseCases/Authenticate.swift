import Foundation
/// Finds the account behind a bearer token, or refuses with `401 unauthorized`.
///
/// A session checked moments ago may come from `IdentityEnvironment.sessions` instead of the
/// database; see `SessionCache` for when that is safe.
public struct Authenticate: Sendable {
    let environment: IdentityEnvironment

    public init(_ environment: IdentityEnvironment) {
        self.environment = environment
    }

    /// An authenticated caller: the account and the hash of the token it used.
    public struct Caller: Sendable, Equatable {
        public let account: Account
        public let tokenHash: [UInt8]
        /// Whether `account` was read from the database for this request. A cached account's
        /// identity is current, but its counters may be a few seconds old: whoever shows the
        /// account itself (`GET /v1/me`) reads it afresh when this is false.
        public let isFresh: Bool
        /// When the caller's session expires: a live stream ends then.
        public let expiresAt: Date

        public init(account: Account, tokenHash: [UInt8], isFresh: Bool = true, expiresAt: Date = .distantFuture) {
            self.account = account
            self.tokenHash = tokenHash
            self.isFresh = isFresh
            self.expiresAt = expiresAt
        }
    }

    public func callAsFunction(bearer token: Substring) async throws -> Caller {
        guard SessionToken.isWellFormed(token) else { throw SoomError.unauthorized }
        let hash = self.environment.hashToken(token)
        let now = self.environment.now()
        let cache = self.environment.sessions
        if let session = cache.session(tokenHash: hash, now: now) {
            return Caller(account: session.account, tokenHash: hash, isFresh: false, expiresAt: session.expiresAt)
        }
        let ticket = cache.ticket()
        guard let session = try await self.environment.repository.session(tokenHash: hash, now: now) else {
            throw SoomError.unauthorized
        }
        cache.store(session, tokenHash: hash, ticket: ticket, now: now)
        return Caller(account: session.account, tokenHash: hash, expiresAt: session.expiresAt)
    }
}
