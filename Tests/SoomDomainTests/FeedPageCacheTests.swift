import Foundation
import SoomDomain
import Synchronization
import Testing

@Suite("Feed page cache")
struct FeedPageCacheTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let author = UserSummary(id: UUID(), nickname: "글쓴이", profileImage: nil)

    static func card(_ id: UUID = UUID(), author: UserSummary = author, expiresAt: Date? = nil, likes: Int = 0) -> Card {
        Card(
            id: id, content: "하늘", font: .default, background: .builtIn(name: "sea-calm"), tags: [], author: author, parentID: nil,
            parentDeleted: false, createdAt: start, expiresAt: expiresAt, likeCount: likes, commentCount: 0, likedByMe: false, isMine: false,
            distanceMeters: nil)
    }

    static func page(_ cards: Card...) -> FeedPage { FeedPage(cards: cards, next: nil) }

    static let latest = FeedPageCache.Key(.latest, after: nil, limit: 20)

    @Test("the key tells pages, sizes and feeds apart")
    func keys() throws {
        let tag = try Tag(normalising: "하늘")
        let position = FeedPosition(createdAtMicros: 5, id: UUID())
        #expect(FeedPageCache.Key(.latest, after: position, limit: 20) != Self.latest)
        #expect(FeedPageCache.Key(.latest, after: nil, limit: 21) != Self.latest)
        #expect(FeedPageCache.Key(.tag(tag), after: nil, limit: 20) != Self.latest)
        #expect(FeedPageCache.Key(.latest, after: position, limit: 20) == FeedPageCache.Key(.latest, after: position, limit: 20))
    }

    @Test("a page is served for its lifetime counted from the start of its read, never longer than a second, and not at all when off")
    func lifetime() {
        let cache = FeedPageCache(lifetime: 0.5)
        let page = Self.page(Self.card())
        cache.store(page, for: Self.latest, ticket: cache.ticket(at: Self.start))
        #expect(cache.page(Self.latest, at: Self.start.addingTimeInterval(0.49)) == page)
        #expect(cache.page(Self.latest, at: Self.start.addingTimeInterval(0.5)) == nil)
        #expect(cache.count == 0)
        // A clock that went back does not make a page young again.
        cache.store(page, for: Self.latest, ticket: cache.ticket(at: Self.start))
        #expect(cache.page(Self.latest, at: Self.start.addingTimeInterval(-0.1)) == nil)

        #expect(FeedPageCache(lifetime: 30).lifetime == 1)
        let off = FeedPageCache(lifetime: 0)
        off.store(page, for: Self.latest, ticket: off.ticket(at: Self.start))
        #expect(!off.isEnabled && off.page(Self.latest, at: Self.start) == nil && off.count == 0)
    }

    @Test("a page holding a story past its expiry is dropped")
    func expiredStory() {
        let cache = FeedPageCache(lifetime: 1)
        let page = Self.page(Self.card(), Self.card(expiresAt: Self.start.addingTimeInterval(0.3)))
        cache.store(page, for: Self.latest, ticket: cache.ticket(at: Self.start))
        #expect(cache.page(Self.latest, at: Self.start.addingTimeInterval(0.29)) == page)
        #expect(cache.page(Self.latest, at: Self.start.addingTimeInterval(0.3)) == nil)
        #expect(cache.count == 0)
    }

    @Test("a read that started before an invalidation is not kept; an older read does not replace a newer one")
    func tickets() {
        let cache = FeedPageCache(lifetime: 1)
        let stale = Self.page(Self.card(likes: 1))
        let ticket = cache.ticket(at: Self.start)
        cache.invalidateAll()
        cache.store(stale, for: Self.latest, ticket: ticket)
        #expect(cache.count == 0)

        let card = Self.card()
        let before = cache.ticket(at: Self.start)
        cache.invalidate(card: card.id)
        cache.store(Self.page(card), for: Self.latest, ticket: before)
        #expect(cache.count == 0)

        let newer = Self.page(Self.card(likes: 2))
        let older = cache.ticket(at: Self.start)
        cache.store(newer, for: Self.latest, ticket: cache.ticket(at: Self.start.addingTimeInterval(0.2)))
        cache.store(stale, for: Self.latest, ticket: older)
        #expect(cache.page(Self.latest, at: Self.start.addingTimeInterval(0.3)) == newer)
    }

    @Test("a like drops only the pages showing that card; a post or deletion drops all")
    func invalidation() throws {
        let cache = FeedPageCache(lifetime: 1)
        let liked = Self.card()
        let other = FeedPageCache.Key(.tag(try Tag(normalising: "바다")), after: nil, limit: 20)
        cache.store(Self.page(liked, Self.card()), for: Self.latest, ticket: cache.ticket(at: Self.start))
        cache.store(Self.page(Self.card()), for: other, ticket: cache.ticket(at: Self.start))
        cache.invalidate(card: liked.id)
        #expect(cache.page(Self.latest, at: Self.start) == nil)
        #expect(cache.page(other, at: Self.start) != nil)
        cache.invalidateAll()
        #expect(cache.page(other, at: Self.start) == nil)
    }

    @Test("a like refuses only reads that began before it and show the card; a long-gone read is refused")
    func likeRefusesOnlyItsCard() {
        let cache = FeedPageCache(lifetime: 1)
        let liked = Self.card()
        let other = FeedPageCache.Key(.latest, after: nil, limit: 5)
        let ticket = cache.ticket(at: Self.start)
        cache.invalidate(card: liked.id)
        cache.store(Self.page(liked), for: Self.latest, ticket: ticket)
        cache.store(Self.page(Self.card()), for: other, ticket: ticket)
        #expect(cache.page(Self.latest, at: Self.start) == nil)
        #expect(cache.page(other, at: Self.start) != nil)

        let old = cache.ticket(at: Self.start)
        for _ in 0...FeedPageCache.changeLogSize { cache.invalidate(card: UUID()) }
        cache.store(Self.page(Self.card()), for: Self.latest, ticket: old)
        #expect(cache.page(Self.latest, at: Self.start) == nil, "the changes since this read are no longer all known")
    }

    @Test("memory: a page larger than a sixteenth of the budget is not kept, and the budget is never exceeded")
    func byteBudget() {
        let small = Self.page(Self.card())
        let cost = FeedPageCache.cost(of: small)
        let cache = FeedPageCache(lifetime: 1, byteBudget: cost * 16)
        let huge = Self.page(
            Card(
                id: UUID(), content: String(repeating: "가", count: cost), font: .default, background: .builtIn(name: "sea-calm"), tags: [],
                author: Self.author, parentID: nil, parentDeleted: false, createdAt: Self.start, expiresAt: nil, likeCount: 0, commentCount: 0,
                likedByMe: false, isMine: false, distanceMeters: nil))
        cache.store(huge, for: Self.latest, ticket: cache.ticket(at: Self.start))
        #expect(cache.count == 0)
        for limit in 1...40 {
            cache.store(small, for: FeedPageCache.Key(.latest, after: nil, limit: limit), ticket: cache.ticket(at: Self.start))
            #expect(cache.bytes <= cost * 16)
        }
        #expect(cache.count >= 1 && cache.count <= 16)
        cache.invalidateAll()
        #expect(cache.bytes == 0)
    }

    @Test("every kept page and chunk entry gets fresh memos from the maker; without one, none")
    func memos() throws {
        let cache = FeedPageCache(lifetime: 1, memos: CountingMemo.maker)
        let first = try #require(cache.store(Self.page(Self.card()), for: Self.latest, ticket: cache.ticket(at: Self.start)))
        let again = try #require(cache.store(Self.page(Self.card()), for: Self.latest, ticket: cache.ticket(at: Self.start.addingTimeInterval(0.1))))
        guard case .page(let firstMemo) = first.shared, case .page(let againMemo) = again.shared else {
            Issue.record("kept pages carry a page memo")
            return
        }
        #expect(firstMemo !== againMemo, "a page read again gets a fresh memo")
        #expect(cache.page(Self.latest, at: Self.start.addingTimeInterval(0.2))?.shared == again.shared)

        let key = NearbyChunk.Key(prefix: "wydm9", after: nil, size: 2)
        let centre = try GeoLocation(latitude: 37.5, longitude: 127)
        let chunk = NearbyChunk(entries: [Self.card(), Self.card()].map { NearbyChunk.Entry(card: $0, micros: 1, centre: centre) }, size: 2)
        let kept = try #require(cache.store(chunk, for: key, ticket: cache.ticket(at: Self.start)))
        #expect(kept == chunk, "memos are not part of the value")
        let entryMemos = kept.entries.compactMap(\.memo)
        #expect(entryMemos.count == 2 && entryMemos[0] !== entryMemos[1])

        let plain = FeedPageCache(lifetime: 1)
        #expect(plain.store(Self.page(Self.card()), for: Self.latest, ticket: plain.ticket(at: Self.start))?.shared == nil)
    }

    @Test("when full, expired pages go first, then arbitrary ones; the newest is always kept")
    func capacity() {
        let cache = FeedPageCache(lifetime: 1, capacity: 2)
        func key(_ limit: Int) -> FeedPageCache.Key { FeedPageCache.Key(.latest, after: nil, limit: limit) }
        cache.store(Self.page(), for: key(1), ticket: cache.ticket(at: Self.start))
        cache.store(Self.page(), for: key(2), ticket: cache.ticket(at: Self.start.addingTimeInterval(0.5)))
        cache.store(Self.page(), for: key(3), ticket: cache.ticket(at: Self.start.addingTimeInterval(1.2)))
        #expect(cache.count == 2)
        #expect(cache.page(key(2), at: Self.start.addingTimeInterval(1.2)) != nil)
        cache.store(Self.page(), for: key(4), ticket: cache.ticket(at: Self.start.addingTimeInterval(1.3)))
        #expect(cache.count == 2)
        #expect(cache.page(key(4), at: Self.start.addingTimeInterval(1.3)) != nil)
        let survivors = [key(2), key(3)].filter { cache.page($0, at: Self.start.addingTimeInterval(1.3)) != nil }
        #expect(survivors.count == 1, "one of the fresh pages made room")
    }
}

@Suite("Reading shared feed pages")
struct SharedFeedReadTests {
    static let viewer = UUID()

    @Test("a kept page is read once (with its first viewer's marks) and completed with each later viewer's likes and own cards")
    func sharedAndMarked() async throws {
        let mine = FeedPageCacheTests.card(author: UserSummary(id: Self.viewer, nickname: "나", profileImage: nil))
        let liked = FeedPageCacheTests.card()
        let plain = FeedPageCacheTests.card()
        let repository = RecordingCardRepository(
            pageResult: FeedPage(cards: [mine, liked, plain], next: nil),
            marks: { viewer in ViewerMarks(liked: viewer == Self.viewer ? [liked.id: 5] : [:], blocked: false) })
        let clock = Mutex(FeedPageCacheTests.start)
        let environment = CardEnvironment(cards: repository, feedPages: FeedPageCache(lifetime: 1), now: { clock.withLock { $0 } })
        let request = try PageRequest(limit: 20, cursor: nil)

        let first = try await ReadFeed(environment)(.latest, page: request, viewer: Self.viewer)
        #expect(first.cards.map(\.isMine) == [true, false, false])
        #expect(first.cards.map(\.likedByMe) == [false, true, false])
        // The liked card's count is the one read with the marks, not the kept one.
        #expect(first.cards.map(\.likeCount) == [0, 5, 0])
        let someoneElse = try await ReadFeed(environment)(.latest, page: request, viewer: UUID())
        #expect(someoneElse.cards.map(\.isMine) == [false, false, false] && someoneElse.cards.map(\.likedByMe) == [false, false, false])
        #expect(someoneElse.cards.map(\.likeCount) == [0, 0, 0])
        // The first read brought the page and the first viewer's marks at once; the second viewer's needed a probe.
        #expect(repository.calls.withLock { ($0.sharedPages.count, $0.pages.count, $0.marks.count) } == (1, 0, 1))

        // Past its lifetime the page is read again.
        clock.withLock { $0 = $0.addingTimeInterval(1) }
        _ = try await ReadFeed(environment)(.latest, page: request, viewer: Self.viewer)
        #expect(repository.calls.withLock { $0.sharedPages.count } == 2)
    }

    @Test("a shared page that is not kept is read by one reader; the others wait for that read, or read their own page when it fails")
    func singleFlight() async throws {
        let cache = FeedPageCache(lifetime: 1)
        let now = FeedPageCacheTests.start
        let key = FeedPageCacheTests.latest
        guard case .read = cache.lookUp(key, at: now) else {
            Issue.record("the first reader reads")
            return
        }
        guard case .wait = cache.lookUp(key, at: now) else {
            Issue.record("the second waits")
            return
        }
        let page = FeedPageCacheTests.page(FeedPageCacheTests.card())
        async let waited = cache.awaitPage(key, at: now)
        try await Task.sleep(for: .milliseconds(50))
        let kept = cache.store(page, for: key, ticket: cache.ticket(at: now))
        #expect(kept?.cards == page.cards)
        cache.land(key, with: kept)
        #expect(await waited?.cards == page.cards)
        guard case .kept(let served, refresh: false) = cache.lookUp(key, at: now) else {
            Issue.record("landed and kept")
            return
        }
        #expect(served.cards == page.cards)

        // A failed read hands the waiters nothing: each reads its own page.
        let deeper = FeedPageCache.Key(.latest, after: FeedPosition(createdAtMicros: 5, id: UUID()), limit: 20)
        guard case .read = cache.lookUp(deeper, at: now) else {
            Issue.record("the first reader reads")
            return
        }
        async let failed = cache.awaitPage(deeper, at: now)
        try await Task.sleep(for: .milliseconds(50))
        cache.land(deeper, with: nil)
        #expect(await failed == nil)
        guard case .read = cache.lookUp(deeper, at: now) else {
            Issue.record("nobody reads it any more")
            return
        }
        cache.land(deeper, with: nil)
    }

    @Test(
        "a page in its last quarter of life is read again once, in the background: readers never wait, and another instance's post shows within the lifetime"
    )
    func refreshAhead() async throws {
        let old = FeedPageCacheTests.card()
        let repository = RecordingCardRepository(pageResult: FeedPage(cards: [old], next: nil))
        let clock = Mutex(FeedPageCacheTests.start)
        let environment = CardEnvironment(cards: repository, feedPages: FeedPageCache(lifetime: 1), now: { clock.withLock { $0 } })
        let request = try PageRequest(limit: 20, cursor: nil)
        func page() async throws -> [UUID] { try await ReadFeed(environment)(.latest, page: request, viewer: Self.viewer).cards.map(\.id) }
        func reads() -> Int { repository.calls.withLock { $0.sharedPages.count } }

        #expect(try await page() == [old.id])
        #expect(reads() == 1)
        clock.withLock { $0 = $0.addingTimeInterval(0.5) }
        #expect(try await page() == [old.id])
        #expect(reads() == 1, "not yet due")

        // Posted through another instance: nothing here drops the page.
        let posted = FeedPageCacheTests.card()
        repository.setPageResult(FeedPage(cards: [posted, old], next: nil))
        clock.withLock { $0 = FeedPageCacheTests.start.addingTimeInterval(0.8) }
        #expect(try await page() == [old.id], "served from the kept page at once")
        let deadline = ContinuousClock.now + .seconds(5)
        while reads() == 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(reads() == 2, "read again once, in the background")
        #expect(await environment.feedPages.awaitPage(FeedPageCacheTests.latest, at: clock.withLock { $0 }) != nil)
        #expect(try await page() == [posted.id, old.id])
        // Past the first page's expiry the read-ahead page serves: no reader read in the foreground.
        clock.withLock { $0 = FeedPageCacheTests.start.addingTimeInterval(1.2) }
        #expect(try await page() == [posted.id, old.id])
        #expect(reads() == 2)
        #expect(repository.calls.withLock { $0.pages.count } == 0)
    }

    @Test("a block between the viewer and an author on the page reads the viewer's own page")
    func blocked() async throws {
        let repository = RecordingCardRepository(
            pageResult: FeedPage(cards: [FeedPageCacheTests.card()], next: nil), marks: { _ in ViewerMarks(liked: [:], blocked: true) })
        let environment = CardEnvironment(cards: repository, feedPages: FeedPageCache(lifetime: 1))
        _ = try await ReadFeed(environment)(.latest, page: try PageRequest(limit: 20, cursor: nil), viewer: Self.viewer)
        #expect(repository.calls.withLock { ($0.sharedPages.count, $0.pages.count) } == (1, 1))
    }

    @Test("feeds that differ between viewers, and a cache that is off, always read the viewer's page")
    func unshared() async throws {
        let repository = RecordingCardRepository(pageResult: FeedPage(cards: [FeedPageCacheTests.card()], next: nil))
        let cached = CardEnvironment(cards: repository, feedPages: FeedPageCache(lifetime: 1))
        _ = try await ReadFeed(cached)(.comments(parent: UUID()), page: try PageRequest(limit: 20, cursor: nil), viewer: Self.viewer)
        _ = try await ReadFeed(CardEnvironment(cards: repository))(.latest, page: try PageRequest(limit: 20, cursor: nil), viewer: Self.viewer)
        #expect(repository.calls.withLock { ($0.sharedPages.count, $0.pages.count, $0.marks.count) } == (0, 2, 0))
    }

    @Test("posting drops every kept page")
    func writesInvalidate() async throws {
        let repository = RecordingCardRepository(pageResult: FeedPage(cards: [FeedPageCacheTests.card()], next: nil))
        let cache = FeedPageCache(lifetime: 1)
        let environment = CardEnvironment(cards: repository, feedPages: cache)
        _ = try await ReadFeed(environment)(.latest, page: try PageRequest(limit: 20, cursor: nil), viewer: Self.viewer)
        #expect(cache.count == 1)
        _ = try await PostCard(environment)(by: CardUseCaseTests.author, parentID: nil, draft: try CardRuleTests.draft(), idempotencyKey: nil)
        #expect(cache.count == 0)
    }
}
