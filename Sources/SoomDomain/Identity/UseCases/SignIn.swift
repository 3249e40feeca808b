/// Opens a session for a registered device that signs a `login` challenge.
public struct SignIn: Sendable {
    let environment: IdentityEnvironment

    public init(_ environment: IdentityEnvironment) {
        self.environment = environment
    }

    public func callAsFunction(_ proof: DeviceProof) async throws -> SignedInAccount {
        let (key, challenge) = try await proof.verify(for: .login, in: self.environment)
        let now = self.environment.now()
        let (token, stored) = self.environment.makeSession(at: now)
        switch try await self.environment.repository.signIn(fingerprint: key.fingerprint, session: stored, challenge: challenge, now: now) {
        case .signedIn(let account): return SignedInAccount(account: account, session: token)
        case .challengeUnavailable: throw SoomError.invalidSignature("The challenge was already used or has expired.")
        case .unknownKey: throw SoomError.accountNotFound
        }
    }
}
