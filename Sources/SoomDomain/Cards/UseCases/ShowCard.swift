import Foundation

/// Reads one card as the viewer sees it: `404` when it does not exist, was deleted or has expired.
///
/// With `FeedPageCache` on, a live card is answered from its kept copy and the viewer's marks
/// (`ReadFeed.detailFromCards`), so a card many people open is read once per cache lifetime;
/// anything else (not live, a block or a report between the viewer and the card) is read for the
/// viewer, as without the cache.
public struct ShowCard: Sendable {
    let environment: CardEnvironment

    public init(_ environment: CardEnvironment) {
        self.environment = environment
    }

    /// The view is noted (`ViewLog`) and counted within seconds.
    public func callAsFunction(_ id: UUID, viewer: UUID) async throws -> Card {
        let card: Card
        if self.environment.feedPages.isEnabled, let kept = try await ReadFeed(self.environment).detailFromCards(id, viewer: viewer) {
            card = kept
        } else {
            guard let read = try await self.environment.cards.card(id: id, viewer: viewer) else { throw SoomError.cardNotFound }
            card = read
        }
        self.environment.views.viewed(card: card.id, author: card.author.id, by: viewer)
        return card
    }
}
