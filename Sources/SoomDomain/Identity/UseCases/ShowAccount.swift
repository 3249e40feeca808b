/// The caller's own account with exact counters (`GET /v1/me`): the one read while authenticating
/// when it came from the database, else a fresh read (a cached session's counters may be old).
public struct ShowAccount: Sendable {
    let environment: IdentityEnvironment

    public init(_ environment: IdentityEnvironment) {
        self.environment = environment
    }

    public func callAsFunction(_ caller: Authenticate.Caller) async throws -> Account {
        if caller.isFresh { return caller.account }
        // Gone between the session check and now: withdrawn by a concurrent request.
        guard let account = try await self.environment.repository.account(id: caller.account.id) else { throw SoomError.unauthorized }
        return account
    }
}
