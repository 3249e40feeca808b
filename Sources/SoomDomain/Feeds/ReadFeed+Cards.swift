import Foundation

extension ReadFeed {
    /// A following page made from kept cards: the page's positions read for the viewer (one small
    /// read, `CardRepository.followingPositions`), its cards from `FeedPageCache` (`keptCards`),
    /// completed with the viewer's marks — or nil when it must be read exactly for the viewer (a
    /// block between the viewer and an author on the page, a card of theirs they reported, or a
    /// card gone between the two reads).
    ///
    /// Which cards a page holds is read every time, so a follow, an unfollow or a followee's post
    /// shows at once on every instance; what may be up to the cache's lifetime old is what a shared
    /// page's cards may be: their counts, and their authors' names and pictures.
    func followingFromCards(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        let positions = try await self.environment.cards.followingPositions(of: viewer, after: position, limit: limit)
        let shown = positions.prefix(limit)
        let next = positions.count > limit ? shown.last : nil
        guard !shown.isEmpty else { return FeedPage(cards: [], next: next) }
        let kept = try await self.keptCards(shown.map(\.id))
        guard kept.count == shown.count else { return nil }
        let memos = kept.compactMap(\.memo)
        let page = FeedPage(
            cards: kept.map(\.card), next: next, shared: memos.count == kept.count ? .cards(memos) : nil, readAt: kept.map(\.readAt).min())
        let marks = try await self.marks(of: viewer, on: page)
        return marks.blocked ? nil : page.seen(by: viewer, marks: marks)
    }

    /// The card `id` as `viewer` sees it, made from its kept copy (`keptCards`) and the viewer's
    /// marks; nil when it must be read exactly for the viewer: it is not live (gone, hidden by
    /// reports — its author may still open it — or an expired story), or it is blocked or
    /// reported between the viewer and it.
    func detailFromCards(_ id: UUID, viewer: UUID) async throws -> Card? {
        guard let kept = try await self.keptCards([id]).first else { return nil }
        let page = FeedPage(cards: [kept.card], next: nil, readAt: kept.readAt)
        let marks = try await self.marks(of: viewer, on: page)
        return marks.blocked ? nil : page.seen(by: viewer, marks: marks).cards.first
    }

    /// The live cards among `ids` as everyone sees them, in the order of `ids` (the others left
    /// out): kept ones from `FeedPageCache`, the rest in one read (`CardRepository.sharedCards`)
    /// and kept. A card not kept is read by one reader while the others wanting it wait for that
    /// read (`FeedPageCache.claimCards`); a kept card in its last quarter of life is read again in
    /// the background (`refreshCardsInBackground`), so a card in use rarely expires at all.
    func keptCards(_ ids: [UUID]) async throws -> [KeptCard] {
        let cache = self.environment.feedPages
        let now = self.environment.now()
        let lookup = cache.cards(ids, at: now)
        self.refreshCardsInBackground(lookup.due, at: now)
        var found: [UUID: KeptCard] = [:]
        var missing: [UUID] = []
        for (id, kept) in zip(ids, lookup.cards) {
            if let kept { found[id] = kept } else { missing.append(id) }
        }
        guard !missing.isEmpty else { return ids.compactMap { found[$0] } }

        let (mine, others) = cache.claimCards(missing)
        if !mine.isEmpty {
            let ticket = cache.ticket(at: now)
            do {
                let read = Dictionary(try await self.environment.cards.sharedCards(mine).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                for id in mine {
                    // This reader uses what it read; waiting readers get it only if kept.
                    let kept = read[id].flatMap { cache.store($0, ticket: ticket) }
                    cache.land(card: id, with: kept)
                    if let card = read[id] { found[id] = kept ?? KeptCard(card: card, memo: nil, readAt: now) }
                }
            } catch {
                for id in mine { cache.land(card: id, with: nil) }
                throw error
            }
        }
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

    /// Reads again, in a task of its own, the cards `FeedPageCache.cards(_:at:)` found due for a
    /// read ahead of their expiry and claimed for this reader; the page does not wait for it. A
    /// failed read, or a card no longer live, only releases the claim: the kept card serves until
    /// it expires (within the cache's lifetime, as any change made on another instance).
    private func refreshCardsInBackground(_ ids: [UUID], at now: Date) {
        guard !ids.isEmpty else { return }
        let cache = self.environment.feedPages
        let cards = self.environment.cards
        let ticket = cache.ticket(at: now)
        Task {
            do {
                let read = Dictionary(try await cards.sharedCards(ids).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                for id in ids { cache.land(card: id, with: read[id].flatMap { cache.store($0, ticket: ticket) }) }
            } catch {
                for id in ids { cache.land(card: id, with: nil) }
            }
        }
    }
}
