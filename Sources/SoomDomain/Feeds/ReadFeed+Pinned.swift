import Foundation

extension ReadFeed {
    /// The latest feed's first page led by the operator cards pinned now (`OperatorSwitches`, read
    /// every two seconds: at most three, newest first), each `pinned`, as the viewer sees them. They
    /// do not count toward the page's size; a pinned card that is also among the page's own cards
    /// is shown once, at the top. Cards the viewer may not see (a block either way, a report) are
    /// left out. From kept cards and the viewer's marks, like any page; read for the viewer when
    /// the cache is off or a mark says so.
    func leadingPinned(_ page: FeedPage, viewer: UUID) async throws -> FeedPage {
        let ids = self.environment.switches.pinnedCards(at: self.environment.now())
        guard !ids.isEmpty else { return page }
        let pinned = try await self.pinned(ids, viewer: viewer)
        guard !pinned.cards.isEmpty else { return page }
        let shown = Set(pinned.cards.map(\.id))
        let rest = page.cards.indices.filter { !shown.contains(page.cards[$0].id) }
        var shared: SharedMemos? = nil
        if let memos = pinned.memos, case .cards(let pageMemos) = page.shared, pageMemos.count == page.cards.count {
            shared = .cards(memos + rest.map { pageMemos[$0] })
        }
        return FeedPage(cards: pinned.cards + rest.map { page.cards[$0] }, next: page.next, shared: shared, readAt: page.readAt)
    }

    /// The live cards among `ids` as the viewer sees them, in order, marked `pinned`, and the memos
    /// of their kept cards when each has one.
    private func pinned(_ ids: [UUID], viewer: UUID) async throws -> (cards: [Card], memos: [any SharedMemo]?) {
        if self.environment.feedPages.isEnabled {
            let kept = try await self.keptCards(ids)
            guard !kept.isEmpty else { return ([], nil) }
            let page = FeedPage(cards: kept.map(\.card), next: nil, readAt: kept.map(\.readAt).min())
            let marks = try await self.marks(of: viewer, on: page)
            if !marks.blocked {
                let memos = kept.compactMap(\.memo)
                let cards = page.seen(by: viewer, marks: marks, at: self.environment.now()).cards.map { $0.pinnedAtTop() }
                return (cards, memos.count == kept.count ? memos : nil)
            }
        }
        var cards: [Card] = []
        for id in ids {
            if let card = try await self.environment.cards.card(id: id, viewer: viewer), card.author.isOperator, card.parentID == nil {
                cards.append(card.pinnedAtTop())
            }
        }
        return (cards, nil)
    }
}
