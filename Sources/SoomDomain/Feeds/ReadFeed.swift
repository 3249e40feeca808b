import Foundation

/// One page of a feed. A cursor from another feed, or a malformed one, is `400 invalid_cursor`.
public struct ReadFeed: Sendable {
    let environment: CardEnvironment

    public init(_ environment: CardEnvironment) {
        self.environment = environment
    }

    /// The cards, the `nextCursor` (nil on the last page), and the memos of the kept shared page or
    /// nearby chunks the cards were completed from (nil when the page was read for this viewer).
    public func callAsFunction(
        _ feed: Feed, page: PageRequest, viewer: UUID
    ) async throws -> (cards: [Card], nextCursor: String?, shared: SharedMemos?) {
        let position = try page.cursor.map { cursor throws(SoomError) in try FeedCursor.decode(cursor, for: feed) }
        guard var result = try await self.read(feed, after: position, limit: page.limit, viewer: viewer) else {
            throw SoomError(.notFound, code: "not_found", message: "There is no such card or account.")
        }
        if case .latest = feed, position == nil { result = try await self.leadingPinned(result, viewer: viewer) }
        // Distances leave the domain only as bands: never a figure that could locate a cell's centre finer.
        let cards = if case .nearby = feed { result.cards.map { $0.banded() } } else { result.cards }
        return (cards, result.next.map { FeedCursor.encode($0, for: feed) }, result.shared)
    }

    /// The page from memory when `FeedPageCache` is on and the feed's source allows it
    /// (`FeedSource`), else read exactly for the viewer. A page made in memory that must be read
    /// for the viewer after all (a block between the viewer and an author on it, say) is read
    /// exactly too.
    private func read(_ feed: Feed, after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        let source = self.environment.cards.source(for: feed)
        if self.environment.feedPages.isEnabled {
            let kept: FeedPage? =
                switch source {
                case let source as any ChunkSource: try await self.nearbyFromChunks(source, after: position, limit: limit, viewer: viewer)
                case let source as any PositionSource:
                    try await self.pageFromCards(source, of: feed, after: position, limit: limit, viewer: viewer)
                default: nil
                }
            if let kept { return kept }
        }
        return try await source.page(after: position, limit: limit, viewer: viewer)
    }

    /// `viewer`'s marks on a page made from kept cards or chunks: from the viewer's book of likes
    /// (`ViewerMarkCache`), read and kept when it is not kept; or, for a viewer with a block or a
    /// report, or more likes than a book holds, one small read of the marks on these cards
    /// (`CardRepository.viewerMarks`).
    func marks(of viewer: UUID, on page: FeedPage) async throws -> ViewerMarks {
        let cards = page.cards
        guard !cards.isEmpty else { return .none }
        let cache = self.environment.viewerMarks
        let now = self.environment.now()
        switch cache.marks(of: viewer, on: page, at: now) {
        case .marks(let marks): return marks
        case .unknown where cache.isActive:
            let ticket = cache.ticket()
            let book = try await self.environment.cards.likeBook(of: viewer, limit: cache.likesPerViewer)
            let seenAt = self.environment.now()
            cache.store(book, of: viewer, readAt: now, seenAt: seenAt, ticket: ticket)
            if let book, !book.guarded,
                let marks = ViewerMarkCache.marks(
                    on: page, from: book.liked, commented: book.commented, ballots: book.ballots, bookSeenAt: seenAt)
            {
                return marks
            }
        case .unknown, .guarded: break
        }
        return try await self.environment.cards.viewerMarks(of: viewer, cards: cards.map(\.id), authors: Array(Set(cards.map(\.author.id))))
    }
}
