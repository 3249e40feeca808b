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

/// Deletes the caller's own card (`403 not_owner` for someone else's). Its comment cards stay.
public struct DeleteCard: Sendable {
    let environment: CardEnvironment

    public init(_ environment: CardEnvironment) {
        self.environment = environment
    }

    public func callAsFunction(_ id: UUID, by accountID: UUID) async throws {
        switch try await self.environment.cards.delete(cardID: id, by: accountID) {
        case .deleted: return
        case .notFound: throw SoomError.cardNotFound
        case .notOwner: throw SoomError(.forbidden, code: "not_owner", message: "Only the author can delete this card.")
        }
    }
}

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

/// One page of a feed. A cursor from another feed, or a malformed one, is `400 invalid_cursor`.
public struct ReadFeed: Sendable {
    let environment: CardEnvironment

    public init(_ environment: CardEnvironment) {
        self.environment = environment
    }

    /// The cards and the `nextCursor` (nil on the last page).
    public func callAsFunction(_ feed: Feed, page: PageRequest, viewer: UUID) async throws -> (cards: [Card], nextCursor: String?) {
        let position = try page.cursor.map { cursor throws(SoomError) in try FeedCursor.decode(cursor, for: feed) }
        guard let result = try await self.environment.cards.page(of: feed, after: position, limit: page.limit, viewer: viewer) else {
            throw SoomError(.notFound, code: "not_found", message: "There is no such card or account.")
        }
        return (result.cards, result.next.map { FeedCursor.encode($0, for: feed) })
    }
}
