import Foundation

/// Creates a single-use challenge: 32 random bytes, valid five minutes.
public struct IssueChallenge: Sendable {
    let environment: IdentityEnvironment

    public init(_ environment: IdentityEnvironment) {
        self.environment = environment
    }

    public func callAsFunction() async throws -> Challenge {
        let challenge = Challenge(
            id: UUID(),
            nonce: Base64URL.encode(self.environment.crypto.randomBytes(Challenge.nonceByteCount)),
            expiresAt: self.environment.now().addingTimeInterval(Challenge.lifetime)
        )
        try await self.environment.repository.insertChallenge(challenge)
        return challenge
    }
}
