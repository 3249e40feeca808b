/// Deletes the caller's account and everything it made, in one transaction. What remains is the
/// reason, the time and the key's fingerprint (for the seven-day rejoin rule).
public struct Withdraw: Sendable {
    let environment: IdentityEnvironment

    public init(_ environment: IdentityEnvironment) {
        self.environment = environment
    }

    public func callAsFunction(_ caller: Authenticate.Caller, reason: String) async throws {
        let reason = try ProfileText.withdrawalReason(reason)
        try await self.environment.repository.withdraw(accountID: caller.account.id, reason: reason, now: self.environment.now())
        // Other instances hear of it from the database; this one must not wait for that.
        self.environment.sessions.invalidate(account: caller.account.id)
        self.environment.feedPages.invalidateAll()
    }
}
