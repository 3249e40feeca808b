import Foundation
import SoomDomain
import Synchronization
import Testing

@Suite("Viewer marks cache")
struct ViewerMarkCacheTests {
    static let start = FeedPageCacheTests.start
    static let viewer = UUID()

    static func listening(lifetime: TimeInterval = 60) -> ViewerMarkCache {
        let cache = ViewerMarkCache(lifetime: lifetime)
        cache.resume()
        return cache
    }

    /// A kept page of `cards` whose read began at `readAt`.
    static func page(_ cards: [Card], readAt: Date = start) -> FeedPage { FeedPage(cards: cards, next: nil, readAt: readAt) }

    /// Keeps the book `liked` (card → count) of `viewer`, read at `at`.
    static func store(_ cache: ViewerMarkCache, liked: [UUID: Int] = [:], guarded: Bool = false, viewer: UUID = viewer, at: Date = start) {
        cache.store(ViewerMarks(liked: liked, blocked: false, guarded: guarded), of: viewer, readAt: at, seenAt: at, ticket: cache.ticket())
    }

    static func marks(_ liked: [UUID: Int]) -> ViewerMarkCache.Lookup { .marks(ViewerMarks(liked: liked, blocked: false, guarded: false)) }

    @Test("a book answers for any card, one never shown before too; a guarded viewer is known as such; nothing while off or not listening")
    func coverage() {
        let cache = Self.listening()
        let (a, b, c) = (FeedPageCacheTests.card(), FeedPageCacheTests.card(), FeedPageCacheTests.card())
        Self.store(cache, liked: [a.id: 3])
        // (On a page read before the book, a liked card shows the book's count.)
        let before = Self.page([a, b, c], readAt: Self.start.addingTimeInterval(-0.1))
        #expect(cache.marks(of: Self.viewer, on: before, at: Self.start) == Self.marks([a.id: 3]))
        #expect(cache.marks(of: Self.viewer, on: Self.page([b, c]), at: Self.start) == Self.marks([:]))
        #expect(cache.marks(of: UUID(), on: Self.page([a]), at: Self.start) == .unknown, "another viewer's are their own")
        #expect(cache.marks(of: Self.viewer, on: FeedPage(cards: [a], next: nil), at: Self.start) == .unknown, "a page without its read time")

        let guarded = UUID()
        Self.store(cache, liked: [a.id: 1], guarded: true, viewer: guarded)
        #expect(cache.marks(of: guarded, on: Self.page([a]), at: Self.start) == .guarded)
        // More likes than a book holds: read for each page, as a guarded viewer.
        let liker = UUID()
        cache.store(nil, of: liker, readAt: Self.start, seenAt: Self.start, ticket: cache.ticket())
        #expect(cache.marks(of: liker, on: Self.page([a]), at: Self.start) == .guarded && cache.count == 3)

        let notListening = ViewerMarkCache(lifetime: 60)
        Self.store(notListening)
        #expect(notListening.marks(of: Self.viewer, on: Self.page([a]), at: Self.start) == .unknown && !notListening.isActive)
        let off = ViewerMarkCache(lifetime: 0)
        off.resume()
        Self.store(off)
        #expect(off.marks(of: Self.viewer, on: Self.page([a]), at: Self.start) == .unknown && !off.isActive && off.count == 0)
        // Losing the listener forgets everything.
        cache.suspend()
        #expect(cache.count == 0 && cache.marks(of: Self.viewer, on: Self.page([a]), at: Self.start) == .unknown)
    }

    @Test("a book answers commentedByMe too: on the page's cards only, and a story answer only until its end")
    func answered() {
        let cache = Self.listening()
        let (a, b, c) = (FeedPageCacheTests.card(), FeedPageCacheTests.card(), FeedPageCacheTests.card())
        let storyEnd = Self.start.addingTimeInterval(30)
        cache.store(
            ViewerMarks(liked: [:], commented: [a.id: .distantFuture, b.id: storyEnd, UUID(): .distantFuture], blocked: false, guarded: false),
            of: Self.viewer, readAt: Self.start, seenAt: Self.start, ticket: cache.ticket())
        let page = Self.page([a, b, c])
        guard case .marks(let marks) = cache.marks(of: Self.viewer, on: page, at: Self.start) else {
            Issue.record("no marks from the book")
            return
        }
        #expect(marks.commented == [a.id: .distantFuture, b.id: storyEnd])
        let seen = page.seen(by: Self.viewer, marks: marks, at: Self.start).cards.map(\.commentedByMe)
        #expect(seen == [true, true, false])
        let later = page.seen(by: Self.viewer, marks: marks, at: storyEnd).cards.map(\.commentedByMe)
        #expect(later == [true, false, false])
    }

    @Test("a book answers myVotes too: the viewer's ballot on the page's polls, nothing on a card without one")
    func ballots() {
        let cache = Self.listening()
        let poll = Poll(
            options: [.init(text: "가", voteCount: 2), .init(text: "나", voteCount: 1)], multiple: true, voterCount: 2, myVotes: .none,
            closesAt: nil, closed: false)
        let plain = FeedPageCacheTests.card()
        let polled = FeedPageCacheTests.card()
        let withPoll = Card(
            id: polled.id, content: polled.content, font: polled.font, background: polled.background, tags: [], author: polled.author,
            parentID: nil, parentDeleted: false, createdAt: polled.createdAt, expiresAt: nil, likeCount: 0, commentCount: 0, likedByMe: false,
            isMine: false, distanceMeters: nil, poll: poll)
        cache.store(
            ViewerMarks(liked: [:], ballots: [withPoll.id: Ballot(bits: 3), plain.id: Ballot(bits: 1)], blocked: false, guarded: false),
            of: Self.viewer, readAt: Self.start, seenAt: Self.start, ticket: cache.ticket())
        let page = Self.page([withPoll, plain])
        guard case .marks(let marks) = cache.marks(of: Self.viewer, on: page, at: Self.start) else {
            Issue.record("no marks from the book")
            return
        }
        #expect(marks.ballots == [withPoll.id: Ballot(bits: 3)])
        let seen = page.seen(by: Self.viewer, marks: marks, at: Self.start).cards
        #expect(seen[0].poll?.myVotes.indexes == [0, 1] && seen[0].poll?.voterCount == 2)
        #expect(seen[1].poll == nil)
        // Another viewer's page of the same shared cards carries no ballot.
        #expect(page.seen(by: UUID(), marks: .none, at: Self.start).cards[0].poll?.myVotes == Ballot.none)
    }

    @Test("a liked card shows the count read with the book on a page read before it, the page's own on a page read after")
    func likeCounts() {
        let cache = Self.listening()
        let card = FeedPageCacheTests.card(likes: 4)
        Self.store(cache, liked: [card.id: 5], at: Self.start.addingTimeInterval(1))
        // A page read before the book may be from before the viewer's like: the book's count has it.
        let older = Self.page([card], readAt: Self.start.addingTimeInterval(0.9))
        #expect(cache.marks(of: Self.viewer, on: older, at: Self.start.addingTimeInterval(30)) == Self.marks([card.id: 5]))
        // A page read after it counts the like, and is newer.
        let newer = Self.page([FeedPageCacheTests.card(card.id, likes: 9)], readAt: Self.start.addingTimeInterval(1.1))
        #expect(cache.marks(of: Self.viewer, on: newer, at: Self.start.addingTimeInterval(1.2)) == Self.marks([card.id: 9]))
    }

    @Test("a read that began before its viewer's invalidation is not kept; invalidation drops one viewer, or all; a book lives its lifetime")
    func invalidation() {
        let cache = Self.listening(lifetime: 10)
        let card = FeedPageCacheTests.card()
        let other = UUID()
        let ticket = cache.ticket()
        cache.invalidate(viewer: Self.viewer)
        let book = ViewerMarks(liked: [:], blocked: false, guarded: false)
        cache.store(book, of: Self.viewer, readAt: Self.start, seenAt: Self.start, ticket: ticket)
        #expect(cache.marks(of: Self.viewer, on: Self.page([card]), at: Self.start) == .unknown, "read before the like that invalidated it")
        cache.store(book, of: other, readAt: Self.start, seenAt: Self.start, ticket: ticket)
        #expect(cache.marks(of: other, on: Self.page([card]), at: Self.start) != .unknown, "another viewer's change does not refuse it")

        Self.store(cache)
        cache.invalidate(viewer: Self.viewer)
        #expect(cache.marks(of: Self.viewer, on: Self.page([card]), at: Self.start) == .unknown)
        #expect(cache.marks(of: other, on: Self.page([card]), at: Self.start) != .unknown)
        #expect(cache.marks(of: other, on: Self.page([card]), at: Self.start.addingTimeInterval(10)) == .unknown, "read 10 s ago")
        cache.invalidateAll()
        #expect(cache.count == 0)
        Self.store(cache)
        #expect(cache.marks(of: Self.viewer, on: Self.page([card]), at: Self.start) != .unknown, "still working after invalidateAll")
    }
}

@Suite("Reading shared pages with kept marks")
struct KeptMarksReadTests {
    static let viewer = UUID()

    /// The viewer's likes as the database holds them (card → count), set by the test.
    final class Likes: Sendable {
        let value = Mutex<[UUID: Int]>([:])
        func withLock<T>(_ body: (inout [UUID: Int]) -> T) -> T { self.value.withLock { body(&$0) } }
    }

    /// A latest feed of three cards kept for a second, and a viewer whose likes the test sets.
    static func environment(likes: Likes, blocked: Bool = false) -> (CardEnvironment, RecordingCardRepository, FeedPage) {
        let page = FeedPage(cards: (0..<3).map { _ in FeedPageCacheTests.card(likes: 2) }, next: nil)
        let repository = RecordingCardRepository(
            pageResult: page, marks: { _ in ViewerMarks(liked: likes.withLock { $0 }, blocked: blocked, guarded: blocked) })
        let marks = ViewerMarkCache(lifetime: 60)
        marks.resume()
        let environment = CardEnvironment(cards: repository, feedPages: FeedPageCache(lifetime: 1), viewerMarks: marks)
        return (environment, repository, page)
    }

    @Test("a viewer's book is read once and completes every page, a new card's too, until their own like, report or block changes it")
    func keptUntilLiked() async throws {
        let likes = Likes()
        let (environment, repository, page) = Self.environment(likes: likes)
        let request = try PageRequest(limit: 20, cursor: nil)
        let other = UUID()
        func read() async throws -> [Card] { try await ReadFeed(environment)(.latest, page: request, viewer: Self.viewer).cards }
        func books() -> Int { repository.calls.withLock { $0.books.filter { $0 == Self.viewer }.count } }
        _ = try await ReadFeed(environment)(.latest, page: request, viewer: other)
        for _ in 0..<3 { _ = try await read() }
        #expect(books() == 1, "one read of the viewer's book for three pages")

        // A new card on the page needs no read of the book.
        let posted = try await PostCard(environment)(
            by: CardUseCaseTests.author, parentID: nil, draft: try CardRuleTests.draft(), idempotencyKey: nil)
        repository.setPageResult(FeedPage(cards: [posted.card] + page.cards, next: nil))
        #expect(try await read().map(\.likedByMe) == [false, false, false, false])
        #expect(books() == 1)

        // The viewer's own like: their book is read again.
        likes.withLock { $0 = [page.cards[1].id: 3] }
        _ = try await LikeCard(environment)(true, cardID: page.cards[1].id, by: Self.viewer)
        let liked = try await read()
        #expect(liked.map(\.likedByMe) == [false, false, true, false])
        #expect(liked.map(\.likeCount) == [0, 2, 3, 2], "the count read with the book")
        #expect(books() == 2)
        // Someone else's like changes nothing of this viewer's.
        _ = try await LikeCard(environment)(true, cardID: page.cards[0].id, by: other)
        for _ in 0..<2 { _ = try await read() }
        #expect(books() == 2)
        // A report by the viewer, and a block either way, drop the book.
        try await ReportCard(environment)(page.cards[2].id, reason: .abuse, by: Self.viewer)
        _ = try await read()
        #expect(books() == 3)
        let people = PeopleEnvironment(people: InMemoryPeopleRepository(accounts: [Self.viewer, other]), viewerMarks: environment.viewerMarks)
        _ = try await BlockAccount(people)(true, target: Self.viewer, by: other)
        _ = try await read()
        #expect(books() == 4)
        #expect(repository.calls.withLock { $0.marks.count } == 0, "no page needed the marks read for its cards")
    }

    @Test("a nearby page made from kept chunks is completed from the book, with the count the chunks' age calls for")
    func nearby() async throws {
        let likes = Likes()
        let repository = RecordingCardRepository(
            marks: { _ in ViewerMarks(liked: likes.withLock { $0 }, blocked: false, guarded: false) }, located: NearbyChunkTests.city(60, seed: 11))
        // The newest card within 5 km, first on the page.
        let liked = try #require(repository.nearby(around: NearbyChunkTests.seoul, radius: .five, after: nil).first).entry.card.id
        likes.withLock { $0 = [liked: 7] }
        let clock = Mutex(Date(timeIntervalSince1970: 1_900_000_000))
        let marks = ViewerMarkCache(lifetime: 60)
        marks.resume()
        let environment = CardEnvironment(
            cards: repository, feedPages: FeedPageCache(lifetime: 1), viewerMarks: marks, now: { clock.withLock { $0 } })
        let feed = Feed.nearby(NearbyChunkTests.seoul, .five)
        func read() async throws -> [Card] {
            try await ReadFeed(environment)(feed, page: try PageRequest(limit: 10, cursor: nil), viewer: Self.viewer).cards
        }

        let first = try await read()
        #expect(first.first?.id == liked && first.first?.likedByMe == true && first.first?.likeCount == 7)
        clock.withLock { $0 = $0.addingTimeInterval(0.1) }
        let again = try await read()
        #expect(again.map(\.id) == first.map(\.id))
        // The chunks were read before the book: the book's count, not the chunk's 0.
        #expect(again.first?.likedByMe == true && again.first?.likeCount == 7)
        #expect(repository.calls.withLock { ($0.books.count, $0.marks.count) } == (1, 0), "the second page needed no read")
        // Chunks read after the book (the old ones expired) count the like themselves.
        clock.withLock { $0 = $0.addingTimeInterval(1) }
        let later = try await read()
        #expect(later.first?.likedByMe == true && later.first?.likeCount == 0, "the double's chunks count no likes")
        #expect(repository.calls.withLock { $0.books.count } == 1)
    }

    @Test(
        "a viewer with a block or a report, or more likes than a book holds, has the marks on each page read, and a block on the page reads their own page"
    )
    func guardedViewer() async throws {
        let (environment, repository, _) = Self.environment(likes: Likes(), blocked: true)
        let request = try PageRequest(limit: 20, cursor: nil)
        for _ in 0..<3 { _ = try await ReadFeed(environment)(.latest, page: request, viewer: Self.viewer) }
        // One read of the book says the viewer is guarded; each page read the marks, then its own page.
        #expect(repository.calls.withLock { ($0.books.count, $0.marks.count, $0.pages.count) } == (1, 3, 3))

        let likes = Likes()
        likes.withLock { $0 = [UUID(): 1, UUID(): 1] }
        let repository2 = RecordingCardRepository(
            pageResult: FeedPage(cards: [FeedPageCacheTests.card()], next: nil),
            marks: { _ in ViewerMarks(liked: likes.withLock { $0 }, blocked: false, guarded: false) })
        let marks = ViewerMarkCache(lifetime: 60, likesPerViewer: 1)
        marks.resume()
        let environment2 = CardEnvironment(cards: repository2, feedPages: FeedPageCache(lifetime: 1), viewerMarks: marks)
        for _ in 0..<3 { _ = try await ReadFeed(environment2)(.latest, page: request, viewer: Self.viewer) }
        #expect(repository2.calls.withLock { ($0.books.count, $0.marks.count, $0.pages.count) } == (1, 3, 0))
    }
}
