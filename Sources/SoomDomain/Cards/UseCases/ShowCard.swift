import Foundation

/// Reads one card as the viewer sees it: `404` when it does not exist, was deleted or has expired.
public struct ShowCard: Sendable {
    let environment: CardEnvironment

    public init(_ environment: CardEnvironment) {
        self.environment = environment
    }

    public func callAsFunction(_ id: UUID, viewer: UUID) async throws -> Card {
        guard let card = try await self.environment.cards.card(id: id, viewer: viewer) else { throw SoomError.cardNotFound }
        return card
    }
}
