/// Ends the caller's current session: its token stops working at once.
public struct SignOut: Sendable {
    let environment: IdentityEnvironment

    public init(_ environment: IdentityEnvironment) {
        self.environment = environment
    }

    public func callAsFunction(_ caller: Authenticate.Caller) async throws {
        try await self.environment.repository.deleteSession(tokenHash: caller.tokenHash)
    }
}
