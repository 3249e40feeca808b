import Foundation
import SoomDomain
import Synchronization
import Testing

@Suite("Feed page cache")
struct FeedPageCacheTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let author = UserSummary(id: UUID(), nickname: "글쓴이", profileImage: nil)

    static func card(_ id: UUID = UUID(), author: UserSummary = author, expiresAt: Date? = nil, likes: Int = 0, content: String = "하늘") -> Card {
        Card(
            id: id, content: content, font: .default, background: .builtIn(name: "sea-calm"), tags: [], author: author, parentID: nil,
            parentDeleted: false, createdAt: start, expiresAt: expiresAt, likeCount: likes, commentCount: 0, likedByMe: false, isMine: false,
            distanceMeters: nil)
    }

    static let latest = FeedPageCache.PositionsKey(.latest, viewer: nil, after: nil, limit: 20)
    static let below = FeedPosition(createdAtMicros: 5, id: UUID())

    /// The kept positions for `key` at `now`, if any (a lookup that finds none is landed empty).
    static func kept(_ cache: FeedPageCache, _ key: FeedPageCache.PositionsKey, at now: Date = start) -> [FeedPosition]? {
        switch cache.lookUp(key, at: now) {
        case .kept(let positions, _): return positions
        case .read:
            cache.land(key, with: nil)
            return nil
        case .wait: return nil
        }
    }

    static func keep(_ cache: FeedPageCache, _ key: FeedPageCache.PositionsKey, at now: Date = start) {
        cache.store([Self.below], for: key, ticket: cache.ticket(at: now))
    }

    @Test("the positions key tells feeds, pages, sizes and viewers apart")
    func keys() throws {
        let tag = try Tag(normalising: "하늘")
        let viewer = UUID()
        #expect(FeedPageCache.PositionsKey(.latest, viewer: nil, after: Self.below, limit: 20) != Self.latest)
        #expect(FeedPageCache.PositionsKey(.latest, viewer: nil, after: nil, limit: 21) != Self.latest)
        #expect(FeedPageCache.PositionsKey(.tag(tag), viewer: nil, after: nil, limit: 20) != Self.latest)
        let following = FeedPageCache.PositionsKey(.following, viewer: viewer, after: nil, limit: 20)
        #expect(following != FeedPageCache.PositionsKey(.following, viewer: UUID(), after: nil, limit: 20))
        #expect(!following.isShared && Self.latest.isShared)
    }

    @Test("a post drops only first pages; a like drops the card and the chunks showing it, never a page; a deletion drops all")
    func invalidation() throws {
        let cache = FeedPageCache(lifetime: 1)
        let later = FeedPageCache.PositionsKey(.latest, viewer: nil, after: Self.below, limit: 20)
        let following = FeedPageCache.PositionsKey(.following, viewer: UUID(), after: nil, limit: 20)
        let popular = FeedPageCache.PositionsKey(.popular, viewer: nil, after: nil, limit: 20)
        for key in [Self.latest, later, following, popular] { Self.keep(cache, key) }
        let liked = Self.card()
        cache.store(liked, ticket: cache.ticket(at: Self.start))
        let centre = try GeoLocation(latitude: 37.5, longitude: 127)
        let chunkKey = NearbyChunk.Key(prefix: "wydm9", after: nil, size: 2)
        cache.store(
            NearbyChunk(entries: [NearbyChunk.Entry(card: liked, micros: 1, centre: centre)], size: 2), for: chunkKey,
            ticket: cache.ticket(at: Self.start))

        cache.invalidatePost(in: nil, replyingTo: nil)
        #expect(Self.kept(cache, Self.latest) == nil && Self.kept(cache, following) == nil && Self.kept(cache, popular) == nil)
        #expect(Self.kept(cache, later) == [Self.below], "a later page holds only cards older than its cursor")
        #expect(cache.cards([liked.id], at: Self.start).cards[0] != nil && cache.chunk(chunkKey, at: Self.start) != nil)

        Self.keep(cache, Self.latest)
        cache.invalidate(card: liked.id)
        #expect(cache.cards([liked.id], at: Self.start).cards[0] == nil && cache.chunk(chunkKey, at: Self.start) == nil)
        #expect(Self.kept(cache, Self.latest) != nil && Self.kept(cache, later) != nil, "a like moves no card on or off a page")

        cache.invalidateAll()
        #expect(Self.kept(cache, later) == nil && cache.count == 0)
    }

    @Test("a read of a first page begun before a post is not kept; one of a later page is")
    func tickets() {
        let cache = FeedPageCache(lifetime: 1)
        let later = FeedPageCache.PositionsKey(.latest, viewer: nil, after: Self.below, limit: 20)
        let ticket = cache.ticket(at: Self.start)
        cache.invalidatePost(in: nil, replyingTo: nil)
        #expect(!cache.store([Self.below], for: Self.latest, ticket: ticket))
        #expect(cache.store([Self.below], for: later, ticket: ticket))
    }

    @Test("memory: a card larger than a sixteenth of the budget is not kept, and the budget is never exceeded")
    func byteBudget() {
        let cost = 4_000
        let cache = FeedPageCache(lifetime: 1, byteBudget: cost * 16)
        cache.store(Self.card(content: String(repeating: "가", count: cost)), ticket: cache.ticket(at: Self.start))
        #expect(cache.count == 0)
        for _ in 1...200 {
            cache.store(Self.card(content: String(repeating: "가", count: 200)), ticket: cache.ticket(at: Self.start))
            #expect(cache.bytes <= cost * 16)
        }
        #expect(cache.count >= 1 && cache.count < 200)
        cache.invalidateAll()
        #expect(cache.bytes == 0)
    }

    @Test("every kept card and chunk entry gets fresh memos from the maker; without one, none")
    func memos() throws {
        let cache = FeedPageCache(lifetime: 1, memos: CountingMemo.maker)
        let card = Self.card()
        let first = try #require(cache.store(card, ticket: cache.ticket(at: Self.start)))
        let again = try #require(cache.store(card, ticket: cache.ticket(at: Self.start.addingTimeInterval(0.1))))
        let (firstMemo, againMemo) = (try #require(first.memo), try #require(again.memo))
        #expect(firstMemo !== againMemo, "a card read again gets a fresh memo")

        let key = NearbyChunk.Key(prefix: "wydm9", after: nil, size: 2)
        let centre = try GeoLocation(latitude: 37.5, longitude: 127)
        let chunk = NearbyChunk(entries: [Self.card(), Self.card()].map { NearbyChunk.Entry(card: $0, micros: 1, centre: centre) }, size: 2)
        let kept = try #require(cache.store(chunk, for: key, ticket: cache.ticket(at: Self.start)))
        #expect(kept == chunk, "memos are not part of the value")
        let entryMemos = kept.entries.compactMap(\.memo)
        #expect(entryMemos.count == 2 && entryMemos[0] !== entryMemos[1])

        let plain = FeedPageCache(lifetime: 1)
        #expect(plain.store(card, ticket: plain.ticket(at: Self.start))?.memo == nil)
    }

    @Test("positions live for the lifetime counted from the start of their read, never longer than a second, and not at all when off")
    func lifetime() {
        let cache = FeedPageCache(lifetime: 0.5)
        Self.keep(cache, Self.latest)
        #expect(Self.kept(cache, Self.latest, at: Self.start.addingTimeInterval(0.49)) != nil)
        #expect(Self.kept(cache, Self.latest, at: Self.start.addingTimeInterval(0.5)) == nil)
        #expect(FeedPageCache(lifetime: 30).lifetime == 1)
        let off = FeedPageCache(lifetime: 0)
        Self.keep(off, Self.latest)
        #expect(!off.isEnabled && off.count == 0)
    }
}

@Suite("Reading feed pages from kept cards")
struct SharedFeedReadTests {
    static let viewer = UUID()

    @Test("a latest page is read once for every viewer and completed with each viewer's likes and own cards")
    func sharedAndMarked() async throws {
        let mine = FeedPageCacheTests.card(author: UserSummary(id: Self.viewer, nickname: "나", profileImage: nil))
        let liked = FeedPageCacheTests.card(likes: 4)
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
        #expect(someoneElse.cards.map(\.likeCount) == [0, 4, 0])
        // One read of the positions and one of the cards for both; each viewer's marks read.
        #expect(repository.calls.withLock { ($0.positionReads.count, $0.cardReads.count, $0.pages.count, $0.marks.count) } == (1, 1, 0, 2))

        // Past its lifetime the positions are read again.
        clock.withLock { $0 = $0.addingTimeInterval(1) }
        _ = try await ReadFeed(environment)(.latest, page: request, viewer: Self.viewer)
        #expect(repository.calls.withLock { $0.positionReads.count } == 2)
    }

    @Test("a block between the viewer and an author on the page reads the viewer's own page")
    func blocked() async throws {
        let repository = RecordingCardRepository(
            pageResult: FeedPage(cards: [FeedPageCacheTests.card()], next: nil), marks: { _ in ViewerMarks(liked: [:], blocked: true) })
        let environment = CardEnvironment(cards: repository, feedPages: FeedPageCache(lifetime: 1))
        _ = try await ReadFeed(environment)(.latest, page: try PageRequest(limit: 20, cursor: nil), viewer: Self.viewer)
        #expect(repository.calls.withLock { ($0.positionReads.count, $0.pages.count) } == (1, 1))
    }

    @Test("a feed read for each viewer, and a cache that is off, always read the viewer's page")
    func unshared() async throws {
        let repository = RecordingCardRepository(pageResult: FeedPage(cards: [FeedPageCacheTests.card()], next: nil))
        let cached = CardEnvironment(cards: repository, feedPages: FeedPageCache(lifetime: 1))
        _ = try await ReadFeed(cached)(.comments(parent: UUID()), page: try PageRequest(limit: 20, cursor: nil), viewer: Self.viewer)
        _ = try await ReadFeed(CardEnvironment(cards: repository))(.latest, page: try PageRequest(limit: 20, cursor: nil), viewer: Self.viewer)
        #expect(repository.calls.withLock { ($0.positionReads.count, $0.pages.count, $0.marks.count) } == (0, 2, 0))
    }

    @Test("a post drops the first page, so the next read shows it; a like reads the liked card again, not the page")
    func writesInvalidate() async throws {
        let old = FeedPageCacheTests.card()
        let repository = RecordingCardRepository(pageResult: FeedPage(cards: [old], next: nil))
        let environment = CardEnvironment(cards: repository, feedPages: FeedPageCache(lifetime: 1))
        let request = try PageRequest(limit: 20, cursor: nil)
        func read() async throws -> [UUID] { try await ReadFeed(environment)(.latest, page: request, viewer: Self.viewer).cards.map(\.id) }
        #expect(try await read() == [old.id])

        let posted = try await PostCard(environment)(
            by: CardUseCaseTests.author, parentID: nil, draft: try CardRuleTests.draft(), idempotencyKey: nil)
        repository.setPageResult(FeedPage(cards: [posted.card, old], next: nil))
        #expect(try await read() == [posted.card.id, old.id])
        #expect(repository.calls.withLock { $0.positionReads.count } == 2)

        _ = try await LikeCard(environment)(true, cardID: old.id, by: UUID())
        #expect(try await read() == [posted.card.id, old.id])
        #expect(repository.calls.withLock { ($0.positionReads.count, $0.cardReads.last) } == (2, [old.id]))
    }
}
