/// Finds the account behind a bearer token, or refuses with `401 unauthorized`.
public struct Authenticate: Sendable {
    let environment: IdentityEnvironment

    public init(_ environment: IdentityEnvironment) {
        self.environment = environment
    }

    /// An authenticated caller: the account and the hash of the token it used.
    public struct Caller: Sendable, Equatable {
        public let account: Account
        public let tokenHash: [UInt8]
    }

    public func callAsFunction(bearer token: Substring) async throws -> Caller {
        guard SessionToken.isWellFormed(token) else { throw SoomError.unauthorized }
        let hash = self.environment.hashToken(token)
        guard let account = try await self.environment.repository.account(sessionTokenHash: hash, now: self.environment.now()) else {
            throw SoomError.unauthorized
        }
        return Caller(account: account, tokenHash: hash)
    }
}
