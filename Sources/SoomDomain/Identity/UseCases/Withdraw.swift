/// Deletes the caller's account and everything it made, in one transaction, when the device signs
/// for it with the account's key. What remains is the reason, the time and the key's fingerprint
/// (for the seven-day rejoin rule).
public struct Withdraw: Sendable {
    let environment: IdentityEnvironment

    public init(_ environment: IdentityEnvironment) {
        self.environment = environment
    }

    /// - Throws: `422` for a reason over 500 characters or an unknown algorithm; `401 invalid_signature`
    ///   unless `proof` is a `withdraw` signature by the account's current key on an unspent challenge.
    public func callAsFunction(_ caller: Authenticate.Caller, reason: String, proof: AccountProof) async throws {
        let reason = try ProfileText.withdrawalReason(reason)
        let signature = try await proof.verify(for: .withdraw, account: caller.account, in: self.environment)
        let outcome = try await self.environment.repository.withdraw(
            accountID: caller.account.id, reason: reason, now: self.environment.now(), signature: signature)
        try outcome.require()
    }
}
