import Foundation

/// The one place that decides what a write of cards invalidates: a `CardRepository` that drops
/// what the caches keep once the write it forwards has committed, so that no use case can forget
/// it. `CardEnvironment` wraps every repository it is given in one.
///
/// - A post: the first pages of every feed, the chunks of its cell, the card it answers
///   (`FeedPageCache.invalidatePost`); a comment card also its author's book (`commentedByMe`).
/// - A like or unlike: the card (its count), and the liker's book of likes; a ballot likewise.
/// - Polls closed by the job: those cards (`closed`).
/// - A deletion, a report that hid a card, or a sweep of expired stories (their parents' comment
///   counts change): everything kept (`invalidateAll`); a report also the reporter's book, a
///   deletion the deleter's (their answer may be gone). Other authors' books follow through the
///   database's notifications (migration 0023).
struct InvalidatingCardRepository: CardRepository {
    let base: any CardRepository
    let feedPages: FeedPageCache
    let viewerMarks: ViewerMarkCache

    func create(_ card: NewCard, idempotency: IdempotencyRecord?) async throws -> CreateCardOutcome {
        let outcome = try await self.base.create(card, idempotency: idempotency)
        if case .created = outcome {
            self.feedPages.invalidatePost(in: card.parentID == nil ? card.draft.location?.key : nil, replyingTo: card.parentID)
            if card.parentID != nil { self.viewerMarks.invalidate(viewer: card.author.id) }
        }
        return outcome
    }

    func delete(cardID: UUID, by accountID: UUID) async throws -> DeleteCardOutcome {
        let outcome = try await self.base.delete(cardID: cardID, by: accountID)
        if outcome == .deleted {
            self.feedPages.invalidateAll()
            self.viewerMarks.invalidate(viewer: accountID)
        }
        return outcome
    }

    func setLike(_ liked: Bool, cardID: UUID, by accountID: UUID) async throws -> LikeState? {
        let state = try await self.base.setLike(liked, cardID: cardID, by: accountID)
        if state != nil {
            self.feedPages.invalidate(card: cardID)
            self.viewerMarks.invalidate(viewer: accountID)
        }
        return state
    }

    func report(cardID: UUID, by reporter: UUID, reason: ReportReason, at time: Date, policy: ModerationPolicy) async throws -> ReportOutcome {
        let outcome = try await self.base.report(cardID: cardID, by: reporter, reason: reason, at: time, policy: policy)
        if outcome == .reported || outcome == .hid { self.viewerMarks.invalidate(viewer: reporter) }
        if outcome == .hid { self.feedPages.invalidateAll() }
        return outcome
    }

    func sweepExpiredStories(limit: Int) async throws -> Int {
        let swept = try await self.base.sweepExpiredStories(limit: limit)
        if swept > 0 { self.feedPages.invalidateAll() }
        return swept
    }

    func vote(_ ballot: Ballot, cardID: UUID, by voter: UUID) async throws -> VoteOutcome {
        let outcome = try await self.base.vote(ballot, cardID: cardID, by: voter)
        if case .voted = outcome {
            self.feedPages.invalidate(card: cardID)
            self.viewerMarks.invalidate(viewer: voter)
        }
        return outcome
    }

    func closeDuePolls(limit: Int) async throws -> [UUID] {
        let closed = try await self.base.closeDuePolls(limit: limit)
        for card in closed { self.feedPages.invalidate(card: card) }
        return closed
    }

    func card(id: UUID, viewer: UUID) async throws -> Card? { try await self.base.card(id: id, viewer: viewer) }
    func source(for feed: Feed) -> any FeedSource { self.base.source(for: feed) }
    func sharedCards(_ ids: [UUID]) async throws -> [Card] { try await self.base.sharedCards(ids) }
    func viewerMarks(of viewer: UUID, cards: [UUID], authors: [UUID]) async throws -> ViewerMarks {
        try await self.base.viewerMarks(of: viewer, cards: cards, authors: authors)
    }
    func likeBook(of viewer: UUID, limit: Int) async throws -> ViewerMarks? { try await self.base.likeBook(of: viewer, limit: limit) }
    func refreshPopularRanking(limit: Int, rescan: Bool) async throws { try await self.base.refreshPopularRanking(limit: limit, rescan: rescan) }
    func purgeIdempotencyKeys(limit: Int) async throws -> Int { try await self.base.purgeIdempotencyKeys(limit: limit) }
}
