import Foundation
import SoomDomain
import Synchronization
import Testing

/// Card details and following pages made from kept cards (`FeedPageCache`'s `KeptCard`s) and the
/// viewer's marks, counted through the doubles' reads.
@Suite("Reading kept cards")
struct KeptCardsReadTests {
    static let viewer = UUID()

    /// Three cards, newest first, as the repository (and a following feed) holds them; the
    /// viewer's marks as `marks` says; a page cache of a second, and a marks cache.
    static func environment(
        marks: @escaping @Sendable (UUID) -> ViewerMarks = { _ in ViewerMarks(liked: [:], blocked: false, guarded: false) },
        now: @escaping @Sendable () -> Date = { FeedPageCacheTests.start }
    ) -> (CardEnvironment, RecordingCardRepository, [Card]) {
        let cards = (0..<3).map { index in
            let card = FeedPageCacheTests.card(likes: 2)
            return Card(
                id: card.id, content: card.content, font: card.font, background: card.background, tags: card.tags, author: card.author,
                parentID: nil, parentDeleted: false, createdAt: FeedPageCacheTests.start.addingTimeInterval(-Double(index)), expiresAt: nil,
                likeCount: 2, commentCount: 0, likedByMe: false, isMine: false, distanceMeters: nil)
        }
        let repository = RecordingCardRepository(pageResult: FeedPage(cards: cards, next: nil), marks: marks)
        let viewerMarks = ViewerMarkCache(lifetime: 60)
        viewerMarks.resume()
        let environment = CardEnvironment(
            cards: repository, feedPages: FeedPageCache(lifetime: 1, memos: CountingMemo.maker), viewerMarks: viewerMarks, now: now)
        return (environment, repository, cards)
    }

    @Test("a card's detail is read once for every viewer and completed with each viewer's marks; a like reads it again")
    func detail() async throws {
        let liked = Mutex<UUID?>(nil)
        let (environment, repository, cards) = Self.environment(marks: { viewer in
            let card = liked.withLock { $0 }
            return ViewerMarks(liked: viewer == Self.viewer && card != nil ? [card!: 3] : [:], blocked: false, guarded: false)
        })
        liked.withLock { $0 = cards[1].id }
        let show = ShowCard(environment)
        let seen = try await show(cards[1].id, viewer: Self.viewer)
        #expect(seen.likedByMe && seen.likeCount == 3 && !seen.isMine, "the viewer's like, with the count read with it")
        let other = try await show(cards[1].id, viewer: UUID())
        #expect(!other.likedByMe && other.likeCount == 2)
        let author = try await show(cards[1].id, viewer: cards[1].author.id)
        #expect(author.isMine)
        _ = try await show(cards[1].id, viewer: Self.viewer)
        #expect(repository.calls.withLock { $0.cardReads.count } == 1, "one read of the card for every viewer")
        #expect(repository.calls.withLock { ($0.books.count, $0.marks.count) } == (3, 0), "one book per viewer: the first viewer's was kept")
        #expect(repository.calls.withLock { $0.details.isEmpty }, "nothing read for one viewer")

        _ = try await LikeCard(environment)(true, cardID: cards[1].id, by: UUID())
        _ = try await show(cards[1].id, viewer: Self.viewer)
        #expect(repository.calls.withLock { $0.cardReads.count } == 2, "a like drops the kept card")
    }

    @Test("a card not live, or one between which and the viewer stands a block or a report, is read for the viewer")
    func detailReadExactly() async throws {
        let (blockedEnvironment, blockedRepository, cards) = Self.environment(marks: { _ in ViewerMarks(liked: [:], blocked: true) })
        await #expect(throws: SoomError.cardNotFound) { try await ShowCard(blockedEnvironment)(cards[0].id, viewer: Self.viewer) }
        #expect(blockedRepository.calls.withLock { $0.details.map { $0.id } } == [cards[0].id])

        let (environment, repository, _) = Self.environment()
        let gone = UUID()
        await #expect(throws: SoomError.cardNotFound) { try await ShowCard(environment)(gone, viewer: Self.viewer) }
        #expect(repository.calls.withLock { ($0.cardReads.count, $0.details.map { $0.id }) } == (1, [gone]))
    }

    @Test("a story is not answered from its kept copy past its expiry")
    func expiredStory() async throws {
        let clock = Mutex(FeedPageCacheTests.start)
        let story = Card(
            id: UUID(), content: "잠깐", font: .default, background: .builtIn(name: "sea-calm"), tags: [], author: FeedPageCacheTests.author,
            parentID: nil, parentDeleted: false, createdAt: FeedPageCacheTests.start, expiresAt: FeedPageCacheTests.start.addingTimeInterval(0.5),
            likeCount: 0, commentCount: 0, likedByMe: false, isMine: false, distanceMeters: nil)
        let repository = RecordingCardRepository(pageResult: FeedPage(cards: [story], next: nil))
        let environment = CardEnvironment(cards: repository, feedPages: FeedPageCache(lifetime: 1), now: { clock.withLock { $0 } })
        _ = try await ShowCard(environment)(story.id, viewer: Self.viewer)
        _ = try await ShowCard(environment)(story.id, viewer: Self.viewer)
        #expect(repository.calls.withLock { $0.cardReads.count } == 1)
        clock.withLock { $0 = $0.addingTimeInterval(0.5) }
        _ = try? await ShowCard(environment)(story.id, viewer: Self.viewer)
        #expect(repository.calls.withLock { $0.cardReads.count } == 2, "the expired story's kept copy is not served")
    }

    @Test("a following page reads its positions once for the lifetime and its cards once; the cursor goes on below the page")
    func following() async throws {
        let (environment, repository, cards) = Self.environment()
        let read = ReadFeed(environment)
        let first = try await read(.following, page: try PageRequest(limit: 2, cursor: nil), viewer: Self.viewer)
        #expect(first.cards.map(\.id) == cards.prefix(2).map(\.id))
        guard case .cards(let memos) = first.shared else {
            Issue.record("a page made of kept cards carries their memos")
            return
        }
        #expect(memos.count == 2)
        let again = try await read(.following, page: try PageRequest(limit: 2, cursor: nil), viewer: Self.viewer)
        #expect(again.cards == first.cards && again.nextCursor == first.nextCursor && again.shared == first.shared, "the same kept cards")
        let second = try await read(.following, page: try PageRequest(limit: 2, cursor: first.nextCursor), viewer: Self.viewer)
        #expect(second.cards.map(\.id) == [cards[2].id] && second.nextCursor == nil)
        let positionReads = repository.calls.withLock { $0.positionReads.count }
        let cardReads: [[UUID]] = repository.calls.withLock { $0.cardReads }
        let probes = repository.calls.withLock { $0.books.count + $0.marks.count }
        let pages = repository.calls.withLock { $0.pages.count }
        #expect(positionReads == 2, "the first page's positions read once, and the second page's")
        #expect(cardReads == [cards.map(\.id)], "each card read once, the one after the first page with it")
        #expect(probes == 1, "the viewer's book read once, for both pages")
        #expect(pages == 0, "no page read for the viewer")
    }

    @Test("a following page with a block or a report on it, or whose card went between the reads, is read for the viewer")
    func followingReadExactly() async throws {
        let (blocked, blockedRepository, _) = Self.environment(marks: { _ in ViewerMarks(liked: [:], blocked: true) })
        _ = try await ReadFeed(blocked)(.following, page: try PageRequest(limit: 20, cursor: nil), viewer: Self.viewer)
        #expect(blockedRepository.calls.withLock { $0.pages.count } == 1)

        // The card is gone by the time its card is read: the positions still name it.
        let (environment, repository, cards) = Self.environment()
        let positions = cards.map { FeedPosition(createdAtMicros: Int64($0.createdAt.timeIntervalSince1970 * 1_000_000), id: $0.id) }
        repository.setPageResult(FeedPage(cards: Array(cards.dropFirst()), next: nil))
        let stale = StalePositions(base: repository, positions: positions)
        let gone = CardEnvironment(cards: stale, feedPages: environment.feedPages, viewerMarks: environment.viewerMarks, now: environment.now)
        _ = try await ReadFeed(gone)(.following, page: try PageRequest(limit: 20, cursor: nil), viewer: Self.viewer)
        #expect(repository.calls.withLock { $0.pages.count } == 1)
    }

    @Test("a card not kept is read by one reader while the others wait; a failed read leaves them to read their own")
    func singleFlight() async throws {
        let cache = FeedPageCache(lifetime: 1)
        let now = FeedPageCacheTests.start
        let card = FeedPageCacheTests.card()
        #expect(cache.claimCards([card.id]) == ([card.id], []))
        #expect(cache.claimCards([card.id]) == ([], [card.id]))
        async let waited = cache.awaitCard(card.id, at: now)
        try await Task.sleep(for: .milliseconds(50))
        let kept = cache.store(card, ticket: cache.ticket(at: now))
        cache.land(card: card.id, with: kept)
        #expect(await waited?.card == card)
        #expect(cache.cards([card.id], at: now).cards.map { $0?.card } == [card])

        let other = UUID()
        #expect(cache.claimCards([other]).mine == [other])
        async let failed = cache.awaitCard(other, at: now)
        try await Task.sleep(for: .milliseconds(50))
        cache.land(card: other, with: nil)
        #expect(await failed == nil)
        #expect(cache.claimCards([other]).mine == [other], "nobody reads it any more")
        cache.land(card: other, with: nil)
    }

    @Test("a kept card is dropped by a like of it, not by a post, and a read begun before the like is not kept")
    func invalidation() {
        let cache = FeedPageCache(lifetime: 1)
        let now = FeedPageCacheTests.start
        let (card, other) = (FeedPageCacheTests.card(), FeedPageCacheTests.card())
        cache.store(card, ticket: cache.ticket(at: now))
        cache.store(other, ticket: cache.ticket(at: now))
        cache.invalidatePost(in: nil, replyingTo: nil)
        #expect(cache.cards([card.id, other.id], at: now).cards.compactMap { $0?.card.id } == [card.id, other.id], "a post changes no card")
        cache.invalidatePost(in: nil, replyingTo: card.id)
        #expect(cache.cards([card.id, other.id], at: now).cards.compactMap { $0?.card.id } == [other.id], "an answer changes its parent's count")
        let ticket = cache.ticket(at: now)
        cache.invalidate(card: other.id)
        #expect(cache.store(other, ticket: ticket) == nil)
        #expect(cache.store(card, ticket: ticket) != nil)
        cache.invalidateAll()
        #expect(cache.count == 0)
    }

    @Test("a sweep that deleted expired stories drops the kept cards (their parents' comment counts changed); an empty one keeps them")
    func sweepInvalidates() async throws {
        let (environment, repository, cards) = Self.environment()
        func reads() -> Int { repository.calls.withLock { $0.cardReads.count } }
        _ = try await ShowCard(environment)(cards[0].id, viewer: Self.viewer)
        #expect(try await environment.cards.sweepExpiredStories(limit: 1000) == 0)
        _ = try await ShowCard(environment)(cards[0].id, viewer: Self.viewer)
        #expect(reads() == 1, "nothing swept, the kept card is served")
        repository.storiesToSweep.withLock { $0 = 2 }
        #expect(try await environment.cards.sweepExpiredStories(limit: 1000) == 2)
        _ = try await ShowCard(environment)(cards[0].id, viewer: Self.viewer)
        #expect(reads() == 2, "a sweep that deleted stories drops the kept card")
    }

    @Test("a kept card in its last quarter of life is read again once, in the background, and readers never wait")
    func refreshAhead() async throws {
        let clock = Mutex(FeedPageCacheTests.start)
        let (environment, repository, cards) = Self.environment(now: { clock.withLock { $0 } })
        func reads() -> Int { repository.calls.withLock { $0.cardReads.count } }
        _ = try await ShowCard(environment)(cards[0].id, viewer: Self.viewer)
        clock.withLock { $0 = $0.addingTimeInterval(0.8) }
        _ = try await ShowCard(environment)(cards[0].id, viewer: Self.viewer)
        let deadline = ContinuousClock.now + .seconds(5)
        while reads() == 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(reads() == 2, "read again once, in the background")
        #expect(await environment.feedPages.awaitCard(cards[0].id, at: clock.withLock { $0 }) != nil)
        clock.withLock { $0 = FeedPageCacheTests.start.addingTimeInterval(1.2) }
        _ = try await ShowCard(environment)(cards[0].id, viewer: Self.viewer)
        #expect(reads() == 2, "the read-ahead copy serves past the first one's expiry")
    }
}

extension KeptCardsReadTests {
    @Test("cards falling due while a read ahead is on its way are read together in the next one, and kept")
    func refresherBatches() async throws {
        let (environment, repository, cards) = Self.environment()
        let cache = environment.feedPages
        let refresher = environment.keptCardRefresher
        func reads() -> [[UUID]] { repository.calls.withLock { $0.cardReads } }
        #expect(cache.claimCards(cards.map(\.id)).mine.count == 3)
        repository.cardReadsHeld.withLock { $0 = true }
        refresher.refresh([cards[0].id])
        // Generous: in a full run on two cores the background task may wait its turn a long time.
        let deadline = ContinuousClock.now + .seconds(60)
        while reads().isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        refresher.refresh([cards[1].id])
        refresher.refresh([cards[2].id])
        repository.cardReadsHeld.withLock { $0 = false }
        while reads().count < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(reads() == [[cards[0].id], [cards[1].id, cards[2].id]])
        while cache.count < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(cache.cards(cards.map(\.id), at: FeedPageCacheTests.start).cards.compactMap { $0?.card.id } == cards.map(\.id))
        #expect(cache.claimCards(cards.map(\.id)).mine.count == 3, "every claim was landed")
    }

    @Test("readers missing different cards at the same time are answered by one read; a card not found is not dropped")
    func readersBatched() async throws {
        let (environment, repository, cards) = Self.environment()
        func reads() -> [[UUID]] { repository.calls.withLock { $0.cardReads } }
        let show = ShowCard(environment)
        repository.cardReadsHeld.withLock { $0 = true }
        async let first = show(cards[0].id, viewer: Self.viewer)
        let deadline = ContinuousClock.now + .seconds(60)
        while reads().isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        // While the first read is on its way, two more readers miss two other cards.
        async let second = show(cards[1].id, viewer: UUID())
        async let third = show(cards[2].id, viewer: UUID())
        while environment.keptCardRefresher.queuedCards < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        repository.cardReadsHeld.withLock { $0 = false }
        let shown = try await [first, second, third].map(\.id)
        #expect(shown == cards.map(\.id))
        #expect(reads() == [[cards[0].id], [cards[1].id, cards[2].id]], "the two waiting readers' cards in one read")
        #expect(repository.calls.withLock { $0.details.isEmpty }, "nothing read for one viewer")

        // An unknown card: one shared read and the exact read; the change log is not touched.
        let ticket = environment.feedPages.ticket(at: FeedPageCacheTests.start)
        await #expect(throws: SoomError.cardNotFound) { try await show(UUID(), viewer: Self.viewer) }
        #expect(reads().count == 3)
        #expect(environment.feedPages.store(cards[0], ticket: ticket) != nil, "no change since the ticket")
    }

    @Test("a reader whose cards' read fails meets the error")
    func readerMeetsReadError() async throws {
        let repository = StalePositions(base: RecordingCardRepository(), positions: [], sharedReadsFail: true)
        let environment = CardEnvironment(cards: repository, feedPages: FeedPageCache(lifetime: 1))
        let id = UUID()
        await #expect(throws: StalePositions.Failure.self) { try await ShowCard(environment)(id, viewer: Self.viewer) }
        #expect(environment.feedPages.claimCards([id]).mine == [id], "the claim was landed")
    }

    @Test("a card the read ahead no longer finds (deleted through another instance) stops being served at once")
    func refresherDropsGoneCards() async throws {
        let clock = Mutex(FeedPageCacheTests.start)
        let (environment, repository, cards) = Self.environment(now: { clock.withLock { $0 } })
        _ = try await ShowCard(environment)(cards[0].id, viewer: Self.viewer)
        repository.setPageResult(FeedPage(cards: Array(cards.dropFirst()), next: nil))
        clock.withLock { $0 = $0.addingTimeInterval(0.8) }
        _ = try await ShowCard(environment)(cards[0].id, viewer: Self.viewer)  // served from memory; read ahead
        let deadline = ContinuousClock.now + .seconds(60)
        while environment.feedPages.count > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(environment.feedPages.count == 0)
        await #expect(throws: SoomError.cardNotFound) { try await ShowCard(environment)(cards[0].id, viewer: Self.viewer) }
    }

    @Test("an author's page is made from kept cards; an empty one is read for the viewer (the author may have blocked them)")
    func author() async throws {
        let (environment, repository, cards) = Self.environment()
        let page = try await ReadFeed(environment)(.author(cards[0].author.id), page: try PageRequest(limit: 20, cursor: nil), viewer: Self.viewer)
        #expect(page.cards.map(\.id) == cards.map(\.id))
        #expect(repository.calls.withLock { ($0.positionReads.count, $0.pages.count) } == (1, 0))
        _ = try await ReadFeed(environment)(.author(cards[0].author.id), page: try PageRequest(limit: 20, cursor: nil), viewer: UUID())
        #expect(repository.calls.withLock { $0.positionReads.count } == 1, "an author's positions are the same for every viewer")
        repository.setPageResult(FeedPage(cards: [], next: nil))
        environment.feedPages.invalidateAll()  // what a deletion here does
        _ = try await ReadFeed(environment)(.author(cards[0].author.id), page: try PageRequest(limit: 20, cursor: nil), viewer: Self.viewer)
        #expect(repository.calls.withLock { ($0.positionReads.count, $0.pages.count) } == (2, 1))
    }

    @Test("a reader's following positions are theirs: their follow, a post here, or the listener going down reads them again")
    func followingPositionsKept() async throws {
        let (environment, repository, _) = Self.environment()
        let read = ReadFeed(environment)
        func reads() -> Int { repository.calls.withLock { $0.positionReads.count } }
        func page(_ viewer: UUID = Self.viewer) async throws {
            _ = try await read(.following, page: try PageRequest(limit: 20, cursor: nil), viewer: viewer)
        }
        try await page()
        try await page()
        #expect(reads() == 1, "kept for the lifetime")
        let other = UUID()
        try await page(other)
        #expect(reads() == 2, "another reader's following feed holds other cards")

        // A follow through this instance drops the follower's positions, not another reader's.
        let followee = UUID()
        let people = PeopleEnvironment(
            people: InMemoryPeopleRepository(accounts: [Self.viewer, other, followee]), viewerMarks: environment.viewerMarks,
            feedPages: environment.feedPages)
        _ = try await FollowAccount(people)(true, target: followee, by: Self.viewer)
        try await page()
        try await page(other)
        #expect(reads() == 3, "the follower's page is read again, the other reader's is still kept")
        // So does a block, for both accounts, and a notification from another instance (`invalidate(viewer:)`).
        _ = try await BlockAccount(people)(true, target: other, by: followee)
        try await page()
        try await page(other)
        #expect(reads() == 4, "the blocked account's page is read again")
        environment.feedPages.invalidate(viewer: Self.viewer)
        try await page()
        #expect(reads() == 5)

        // A card posted here may join any following feed.
        environment.feedPages.invalidatePost(in: nil, replyingTo: nil)
        try await page()
        try await page(other)
        #expect(reads() == 7)

        // Without the listener, a follow on another instance would go unheard: read every time.
        environment.viewerMarks.suspend()
        try await page()
        try await page()
        #expect(reads() == 9)
    }

    @Test("a read of positions begun before the reader's follow is not kept")
    func followingPositionsTicket() {
        let cache = FeedPageCache(lifetime: 1)
        let now = FeedPageCacheTests.start
        let key = FeedPageCache.PositionsKey(.following, viewer: Self.viewer, after: nil, limit: 20)
        let position = FeedPosition(createdAtMicros: 1, id: UUID())
        let ticket = cache.ticket(at: now)
        cache.invalidate(viewer: Self.viewer)
        #expect(!cache.store([position], for: key, ticket: ticket))
        cache.invalidate(viewer: UUID())
        #expect(cache.store([position], for: key, ticket: cache.ticket(at: now)))
        let shared = FeedPageCache.PositionsKey(.popular, viewer: nil, after: nil, limit: 20)
        #expect(shared.isShared && !key.isShared)
        let sharedTicket = cache.ticket(at: now)
        cache.invalidateViewers()
        #expect(cache.store([position], for: shared, ticket: sharedTicket), "the feeds the same for everyone are no viewer's")
        guard case .kept(let kept, _) = cache.lookUp(shared, at: now) else {
            Issue.record("kept")
            return
        }
        #expect(kept == [position])
        guard case .read = cache.lookUp(key, at: now) else {
            Issue.record("a reader's positions are dropped with every viewer's")
            return
        }
    }
}

/// A repository over `base` whose positions are fixed, naming cards it may no longer have (a card
/// deleted between the two reads), and whose shared card reads may fail.
private struct StalePositions: CardRepository {
    struct Failure: Error {}
    let base: RecordingCardRepository
    let positions: [FeedPosition]
    var sharedReadsFail = false

    func source(for feed: Feed) -> any FeedSource { Source(base: self.base.source(for: feed), positions: self.positions) }
    func sharedCards(_ ids: [UUID]) async throws -> [Card] {
        if self.sharedReadsFail { throw Failure() }
        return try await self.base.sharedCards(ids)
    }
    func create(_ card: NewCard, idempotency: IdempotencyRecord?) async throws -> CreateCardOutcome {
        try await self.base.create(card, idempotency: idempotency)
    }
    func card(id: UUID, viewer: UUID) async throws -> Card? { try await self.base.card(id: id, viewer: viewer) }
    func delete(cardID: UUID, by accountID: UUID) async throws -> DeleteCardOutcome { .notFound }
    func setLike(_ liked: Bool, cardID: UUID, by accountID: UUID) async throws -> LikeState? { nil }
    func viewerMarks(of viewer: UUID, cards: [UUID], authors: [UUID]) async throws -> ViewerMarks {
        try await self.base.viewerMarks(of: viewer, cards: cards, authors: authors)
    }
    func likeBook(of viewer: UUID, limit: Int) async throws -> ViewerMarks? { try await self.base.likeBook(of: viewer, limit: limit) }
    func refreshPopularRanking(limit: Int, rescan: Bool) async throws {}
    func sweepExpiredStories(limit: Int) async throws -> Int { 0 }
    func purgeIdempotencyKeys(limit: Int) async throws -> Int { 0 }
    func vote(_ ballot: Ballot, cardID: UUID, by voter: UUID) async throws -> VoteOutcome { .notFound }
    func closeDuePolls(limit: Int) async throws -> [UUID] { [] }
    func report(cardID: UUID, by reporter: UUID, reason: ReportReason, at time: Date, policy: ModerationPolicy) async throws -> ReportOutcome {
        .reported
    }
}

/// `StalePositions`' feeds: every one made from its fixed positions.
private struct Source: PositionSource {
    let base: any FeedSource
    let positions: [FeedPosition]
    var positionsAreShared: Bool { true }

    func page(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        try await self.base.page(after: position, limit: limit, viewer: viewer)
    }
    func positions(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> [FeedPosition] { self.positions }
}
