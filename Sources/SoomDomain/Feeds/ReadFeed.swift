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
        guard let result = try await self.read(feed, after: position, limit: page.limit, viewer: viewer) else {
            throw SoomError(.notFound, code: "not_found", message: "There is no such card or account.")
        }
        // Distances leave the domain only as bands: never a figure that could locate a cell's centre finer.
        let cards = if case .nearby = feed { result.cards.map { $0.banded() } } else { result.cards }
        return (cards, result.next.map { FeedCursor.encode($0, for: feed) }, result.shared)
    }

    /// The page from memory when `FeedPageCache` is on and the feed's source allows it
    /// (`FeedSource`), else read exactly for the viewer. A page kept in memory that must be read
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
                case let source as any SharedPageSource: try await self.sharedPage(source, of: feed, after: position, limit: limit, viewer: viewer)
                default: nil
                }
            if let kept { return kept }
        }
        return try await source.page(after: position, limit: limit, viewer: viewer)
    }

    /// A page shared by everyone from `FeedPageCache`, completed with the viewer's marks (one small
    /// read), or, when it is not kept, read together with them (one read, as without the cache) and
    /// kept. One reader reads a page that is not kept while the others wanting it wait for that
    /// read, and a page in use is read again in the background before it expires
    /// (`FeedPageCache.lookUp`). Nil (read the viewer's own page) when the wait ends without a page
    /// (the read failed) or the viewer and an author on the page blocked one another.
    private func sharedPage(
        _ source: any SharedPageSource, of feed: Feed, after position: FeedPosition?, limit: Int, viewer: UUID
    ) async throws -> FeedPage? {
        let cache = self.environment.feedPages
        let key = FeedPageCache.Key(feed, after: position, limit: limit)
        let now = self.environment.now()
        var kept: FeedPage?
        switch cache.lookUp(key, at: now) {
        case .kept(let page, let refresh):
            if refresh { self.refreshInBackground(source, key: key, after: position, limit: limit, viewer: viewer, at: now) }
            kept = page
        case .wait:
            kept = await cache.awaitPage(key, at: now)
        case .read:
            let ticket = cache.ticket(at: now)
            let shared: FeedPage
            let marks: ViewerMarks
            do {
                (shared, marks) = try await source.sharedPage(after: position, limit: limit, viewer: viewer)
            } catch {
                cache.land(key, with: nil)
                throw error
            }
            cache.land(key, with: cache.store(shared, for: key, ticket: ticket))
            return marks.blocked ? nil : shared.seen(by: viewer, marks: marks)
        }
        guard let kept else { return nil }
        let marks = try await self.marks(of: viewer, on: kept)
        return marks.blocked ? nil : kept.seen(by: viewer, marks: marks)
    }

    /// `viewer`'s marks on a shared page's cards: from `ViewerMarkCache` when it keeps them all,
    /// else one small read (`CardRepository.viewerMarks`), kept for the next time when the viewer
    /// has no block and no report at all.
    func marks(of viewer: UUID, on page: FeedPage) async throws -> ViewerMarks {
        let cards = page.cards
        guard !cards.isEmpty else { return .none }
        let cache = self.environment.viewerMarks
        let ticket = cache.ticket()
        let readAt = self.environment.now()
        if let marks = cache.marks(of: viewer, on: page, at: readAt) { return marks }
        let ids = cards.map(\.id)
        let marks = try await self.environment.cards.viewerMarks(of: viewer, cards: ids, authors: Array(Set(cards.map(\.author.id))))
        cache.store(marks, of: viewer, cards: ids, readAt: readAt, seenAt: self.environment.now(), ticket: ticket)
        return marks
    }

    /// Reads again, in a task of its own, a shared page `FeedPageCache.lookUp` found due for a
    /// read ahead of its expiry and claimed for this reader; the page does not wait for it. A
    /// failed read only releases the claim: the kept page serves until it expires, and the reader
    /// who then finds it gone reads it in the foreground and meets the error, if there still is one.
    private func refreshInBackground(
        _ source: any SharedPageSource, key: FeedPageCache.Key, after position: FeedPosition?, limit: Int, viewer: UUID, at now: Date
    ) {
        let cache = self.environment.feedPages
        let ticket = cache.ticket(at: now)
        Task {
            do {
                let (shared, _) = try await source.sharedPage(after: position, limit: limit, viewer: viewer)
                cache.land(key, with: cache.store(shared, for: key, ticket: ticket))
            } catch {
                cache.land(key, with: nil)
            }
        }
    }
}
