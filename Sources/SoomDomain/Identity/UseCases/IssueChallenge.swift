import Foundation

/// Creates a single-use challenge: 32 random bytes, valid five minutes.
///
/// Nothing is stored: the challenge ID seals the nonce and its expiry (`ChallengeSeal`), and the
/// nonce is recorded only when a proof spends it.
public struct IssueChallenge: Sendable {
    let environment: IdentityEnvironment

    public init(_ environment: IdentityEnvironment) {
        self.environment = environment
    }

    public func callAsFunction() async throws -> Challenge {
        let seal = ChallengeSeal(secret: try await self.environment.repository.challengeSecret(), crypto: self.environment.crypto)
        return seal.seal(
            nonce: self.environment.crypto.randomBytes(Challenge.nonceByteCount),
            expiresAt: self.environment.now().addingTimeInterval(Challenge.lifetime))
    }
}
