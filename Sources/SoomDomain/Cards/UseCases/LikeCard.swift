import Foundation

/// Likes (공감) or unlikes a card; idempotent either way.
public struct LikeCard: Sendable {
    let environment: CardEnvironment

    public init(_ environment: CardEnvironment) {
        self.environment = environment
    }

    public func callAsFunction(_ liked: Bool, cardID: UUID, by accountID: UUID) async throws -> LikeState {
        guard let state = try await self.environment.cards.setLike(liked, cardID: cardID, by: accountID) else { throw SoomError.cardNotFound }
        return state
    }
}
