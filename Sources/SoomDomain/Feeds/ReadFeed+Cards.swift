import Foundation

extension ReadFeed {
    /// A page of a feed made from kept cards (`PositionSource`: the following feed, an author's
    /// cards, the popular feed): the page's positions read for the viewer (one
    /// small read, `CardRepository.positions`), its cards from `FeedPageCache` (`keptCards`),
    /// completed with the viewer's marks — or nil when it must be read exactly for the viewer (a
    /// block between the viewer and an author on the page or of the card after it, a card of
    /// these they reported, a card gone between the two reads, or an empty page of a feed whose
    /// subject may be missing).
    ///
    /// Which cards a page holds is kept for the cache's lifetime (`positions`): the reader's own
    /// follows, unfollows and blocks, and this instance's posts and deletions, show at once; other
    /// instances' posts, deletions and rankings within the lifetime, as on a shared page. So may the
    /// cards' counts, and their authors' names and pictures.
    func pageFromCards(_ source: any PositionSource, of feed: Feed, after position: FeedPosition?, limit: Int, viewer: UUID) async throws
        -> FeedPage?
    {
        let positions = try await self.positions(source, of: feed, after: position, limit: limit, viewer: viewer)
        let shown = positions.prefix(limit)
        let next = positions.count > limit ? shown.last : nil
        guard !shown.isEmpty else {
            // An empty page of shared positions is read exactly (an author's is `404` when the author
            // blocked the viewer); the viewer's own following feed is simply empty.
            return source.positionsAreShared ? nil : FeedPage(cards: [], next: nil)
        }
        // The card after the page, too: the exact read passes over cards hidden from the viewer
        // before it decides whether another page follows, so when that card is one, it decides.
        let kept = try await self.keptCards(positions.map(\.id))
        guard kept.count == positions.count else { return nil }
        let readAt = kept.map(\.readAt).min()
        let marks = try await self.marks(of: viewer, on: FeedPage(cards: kept.map(\.card), next: nil, readAt: readAt))
        guard !marks.blocked else { return nil }
        let cards = kept.prefix(shown.count)
        let memos = cards.compactMap(\.memo)
        let page = FeedPage(cards: cards.map(\.card), next: next, shared: memos.count == cards.count ? .cards(memos) : nil, readAt: readAt)
        return page.seen(by: viewer, marks: marks, at: self.environment.now())
    }

    /// Which cards the page holds, and the card after it: kept positions (`FeedPageCache`), or one
    /// read (`CardRepository.positions`), kept. One reader reads positions not kept while the others
    /// wanting them wait, and positions in use are read again in the background ahead of expiry.
    ///
    /// A following feed's positions are kept only while `ViewerMarkCache` is active: its listener
    /// hears every follow, unfollow and block on every instance (migrations 0014 and 0015), so the
    /// reader's own changes show at once everywhere. What may be up to the lifetime old is another
    /// instance's post or deletion, as on a shared page.
    func positions(_ source: any PositionSource, of feed: Feed, after position: FeedPosition?, limit: Int, viewer: UUID) async throws
        -> [FeedPosition]
    {
        let cache = self.environment.feedPages
        let read = { @Sendable in try await source.positions(after: position, limit: limit, viewer: viewer) }
        let key = FeedPageCache.PositionsKey(feed, viewer: source.positionsAreShared ? nil : viewer, after: position, limit: limit)
        guard key.isShared || self.environment.viewerMarks.isActive else { return try await read() }
        let now = self.environment.now()
        switch cache.lookUp(key, at: now) {
        case .kept(let positions, let refresh):
            if refresh {
                let ticket = cache.ticket(at: now)
                Task {
                    // A failed read ahead only releases the claim: the kept positions serve until
                    // they expire, and the reader who then reads them meets the error, if any.
                    let positions = try? await read()
                    cache.land(key, with: positions.flatMap { cache.store($0, for: key, ticket: ticket) ? $0 : nil })
                }
            }
            return positions
        case .wait:
            if let positions = await cache.awaitPositions(key, at: now) { return positions }
        case .read:
            let ticket = cache.ticket(at: now)
            do {
                let positions = try await read()
                cache.land(key, with: cache.store(positions, for: key, ticket: ticket) ? positions : nil)
                return positions
            } catch {
                cache.land(key, with: nil)
                throw error
            }
        }
        return try await read()
    }

    /// The card `id` as `viewer` sees it, made from its kept copy (`keptCards`) and the viewer's
    /// marks; nil when it must be read exactly for the viewer: it is not live (gone, hidden by
    /// reports — its author may still open it — or an expired story), or it is blocked or
    /// reported between the viewer and it.
    func detailFromCards(_ id: UUID, viewer: UUID) async throws -> Card? {
        guard let kept = try await self.keptCards([id]).first else { return nil }
        let page = FeedPage(cards: [kept.card], next: nil, readAt: kept.readAt)
        let marks = try await self.marks(of: viewer, on: page)
        return marks.blocked ? nil : page.seen(by: viewer, marks: marks, at: self.environment.now()).cards.first
    }

    /// The live cards among `ids` as everyone sees them, in the order of `ids` (the others left
    /// out): kept ones from `FeedPageCache`, the rest read (`CardRepository.sharedCards`) and kept.
    /// A card not kept is read once while every reader wanting it waits for that read
    /// (`FeedPageCache.claimCards`), together with the cards other readers are missing at that
    /// moment (`KeptCardRefresher.read`); a kept card in its last quarter of life is read again in
    /// the background (`KeptCardRefresher.refresh`). A card someone else's read failed to keep is
    /// read here, unkept.
    func keptCards(_ ids: [UUID]) async throws -> [KeptCard] {
        let cache = self.environment.feedPages
        let now = self.environment.now()
        let lookup = cache.cards(ids, at: now)
        self.environment.keptCardRefresher.refresh(lookup.due)
        // Every card kept: the page as it is, with no bookkeeping.
        let hits = lookup.cards.compactMap { $0 }
        if hits.count == ids.count { return hits }
        var found: [UUID: KeptCard] = [:]
        var missing: [UUID] = []
        for (id, kept) in zip(ids, lookup.cards) {
            if let kept { found[id] = kept } else { missing.append(id) }
        }

        let (mine, others) = cache.claimCards(missing)
        // Read with other readers' cards, in one statement (`KeptCardRefresher.read`).
        let read = try await self.environment.keptCardRefresher.read(mine)
        found.merge(read) { kept, _ in kept }
        var unanswered: [UUID] = []
        for id in others {
            if let kept = await cache.awaitCard(id, at: now) { found[id] = kept } else { unanswered.append(id) }
        }
        // Another reader's read failed, found nothing or was not kept: read those here, unkept.
        if !unanswered.isEmpty {
            let readAt = self.environment.now()
            for card in try await self.environment.cards.sharedCards(unanswered) {
                found[card.id] = KeptCard(card: card, memo: nil, readAt: readAt)
            }
        }
        return ids.compactMap { found[$0] }
    }
}
