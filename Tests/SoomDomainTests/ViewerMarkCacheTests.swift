import Foundation
import SoomDomain
import Synchronization
import Testing

@Suite("Viewer marks cache")
struct ViewerMarkCacheTests {
    static let start = FeedPageCacheTests.start
    static let viewer = UUID()

    static func listening(lifetime: TimeInterval = 60, marksPerViewer: Int = 512) -> ViewerMarkCache {
        let cache = ViewerMarkCache(lifetime: lifetime, marksPerViewer: marksPerViewer)
        cache.resume()
        return cache
    }

    /// A kept page of `cards` whose read began at `readAt`.
    static func page(_ cards: [Card], readAt: Date = start) -> FeedPage { FeedPage(cards: cards, next: nil, readAt: readAt) }

    /// Keeps `liked` (card → count) for `cards`, read at `at`.
    static func store(_ cache: ViewerMarkCache, _ cards: [Card], liked: [UUID: Int] = [:], viewer: UUID = viewer, at: Date = start) {
        cache.store(
            ViewerMarks(liked: liked, blocked: false, guarded: false), of: viewer, cards: cards.map(\.id), readAt: at, seenAt: at,
            ticket: cache.ticket())
    }

    @Test("marks serve a page only when every card on it is kept; a guarded viewer's never; nothing while off or not listening")
    func coverage() {
        let cache = Self.listening()
        let (a, b, c) = (FeedPageCacheTests.card(), FeedPageCacheTests.card(), FeedPageCacheTests.card())
        Self.store(cache, [a, b], liked: [a.id: 3])
        // (On a page read before the mark, a liked card shows the mark's count.)
        let marks = cache.marks(of: Self.viewer, on: Self.page([a, b], readAt: Self.start.addingTimeInterval(-0.1)), at: Self.start)
        #expect(marks == ViewerMarks(liked: [a.id: 3], blocked: false, guarded: false))
        #expect(cache.marks(of: Self.viewer, on: Self.page([b]), at: Self.start) == ViewerMarks(liked: [:], blocked: false, guarded: false))
        #expect(cache.marks(of: Self.viewer, on: Self.page([a, c]), at: Self.start) == nil, "c was never read")
        #expect(cache.marks(of: UUID(), on: Self.page([a]), at: Self.start) == nil, "another viewer's are their own")
        #expect(cache.marks(of: Self.viewer, on: Self.page([]), at: Self.start) == nil)

        // A later read adds to the book. (On a page read after the mark a liked card shows the page's count, 0 here.)
        Self.store(cache, [c], at: Self.start.addingTimeInterval(1))
        let later = Self.page([a, b, c], readAt: Self.start.addingTimeInterval(1.5))
        #expect(cache.marks(of: Self.viewer, on: later, at: Self.start.addingTimeInterval(2))?.liked == [a.id: 0])

        // A viewer with any block or report: the marks hold for those cards only, and are not kept.
        let guarded = UUID()
        cache.store(
            ViewerMarks(liked: [:], blocked: false, guarded: true), of: guarded, cards: [a.id], readAt: Self.start, seenAt: Self.start,
            ticket: cache.ticket())
        cache.store(
            ViewerMarks(liked: [:], blocked: true), of: guarded, cards: [a.id], readAt: Self.start, seenAt: Self.start, ticket: cache.ticket())
        #expect(cache.marks(of: guarded, on: Self.page([a]), at: Self.start) == nil)
        #expect(cache.count == 1)

        let notListening = ViewerMarkCache(lifetime: 60)
        Self.store(notListening, [a])
        #expect(notListening.marks(of: Self.viewer, on: Self.page([a]), at: Self.start) == nil && !notListening.isActive)
        let off = ViewerMarkCache(lifetime: 0)
        off.resume()
        Self.store(off, [a])
        #expect(off.marks(of: Self.viewer, on: Self.page([a]), at: Self.start) == nil && !off.isActive && off.count == 0)
        // Losing the listener forgets everything.
        cache.suspend()
        #expect(cache.count == 0 && cache.marks(of: Self.viewer, on: Self.page([a]), at: Self.start) == nil)
    }

    @Test("a liked card shows the count read with the mark on a page read before it, the page's own on a page read after")
    func likeCounts() {
        let cache = Self.listening()
        let card = FeedPageCacheTests.card(likes: 4)
        Self.store(cache, [card], liked: [card.id: 5], at: Self.start.addingTimeInterval(1))
        // A page read before the mark may be from before the viewer's like: the mark's count has it.
        let older = FeedPage(cards: [card], next: nil, readAt: Self.start.addingTimeInterval(0.9))
        #expect(cache.marks(of: Self.viewer, on: older, at: Self.start.addingTimeInterval(30))?.liked == [card.id: 5])
        // A page read after it counts the like, and is newer.
        let newer = FeedPage(cards: [FeedPageCacheTests.card(card.id, likes: 9)], next: nil, readAt: Self.start.addingTimeInterval(1.1))
        #expect(cache.marks(of: Self.viewer, on: newer, at: Self.start.addingTimeInterval(1.2))?.liked == [card.id: 9])
        // A page that does not say when it was read is not completed from memory.
        #expect(cache.marks(of: Self.viewer, on: FeedPage(cards: [card], next: nil), at: Self.start.addingTimeInterval(1.2)) == nil)
    }

    @Test("a read that began before its viewer's invalidation is not kept; invalidation drops one viewer, or all")
    func invalidation() {
        let cache = Self.listening()
        let card = FeedPageCacheTests.card()
        let other = UUID()
        let ticket = cache.ticket()
        cache.invalidate(viewer: Self.viewer)
        cache.store(
            ViewerMarks(liked: [:], blocked: false, guarded: false), of: Self.viewer, cards: [card.id], readAt: Self.start, seenAt: Self.start,
            ticket: ticket)
        #expect(cache.marks(of: Self.viewer, on: Self.page([card]), at: Self.start) == nil, "read before the like that invalidated it")
        cache.store(
            ViewerMarks(liked: [:], blocked: false, guarded: false), of: other, cards: [card.id], readAt: Self.start, seenAt: Self.start,
            ticket: ticket)
        #expect(cache.marks(of: other, on: Self.page([card]), at: Self.start) != nil, "another viewer's change does not refuse it")

        Self.store(cache, [card])
        cache.invalidate(viewer: Self.viewer)
        #expect(cache.marks(of: Self.viewer, on: Self.page([card]), at: Self.start) == nil)
        #expect(cache.marks(of: other, on: Self.page([card]), at: Self.start) != nil)
        cache.invalidateAll()
        #expect(cache.marks(of: other, on: Self.page([card]), at: Self.start) == nil && cache.count == 0)
        Self.store(cache, [card])
        #expect(cache.marks(of: Self.viewer, on: Self.page([card]), at: Self.start) != nil, "still working after invalidateAll")
    }

    @Test("a mark lives at most the lifetime, even in a book kept growing; a book past its bound starts afresh")
    func bounds() {
        let cache = Self.listening(lifetime: 10, marksPerViewer: 4)
        let cards = (0..<6).map { _ in FeedPageCacheTests.card() }
        Self.store(cache, [cards[0], cards[1]])
        Self.store(cache, [cards[2]], at: Self.start.addingTimeInterval(9))
        #expect(cache.marks(of: Self.viewer, on: Self.page([cards[0], cards[2]]), at: Self.start.addingTimeInterval(9.9)) != nil)
        #expect(cache.marks(of: Self.viewer, on: Self.page([cards[0]]), at: Self.start.addingTimeInterval(10)) == nil, "read 10 s ago")
        #expect(cache.marks(of: Self.viewer, on: Self.page([cards[2]]), at: Self.start.addingTimeInterval(10)) != nil)

        Self.store(cache, [cards[3]], at: Self.start.addingTimeInterval(9.5))
        #expect(cache.marks(of: Self.viewer, on: Self.page([cards[1], cards[2], cards[3]]), at: Self.start.addingTimeInterval(9.6)) != nil)
        // Four kept, two more read: the book holds only the newest read.
        Self.store(cache, [cards[4], cards[5]], at: Self.start.addingTimeInterval(9.7))
        #expect(cache.marks(of: Self.viewer, on: Self.page([cards[4], cards[5]]), at: Self.start.addingTimeInterval(9.8)) != nil)
        #expect(cache.marks(of: Self.viewer, on: Self.page([cards[3]]), at: Self.start.addingTimeInterval(9.8)) == nil)
        #expect(cache.bytes > 0 && cache.count == 1)
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

    @Test("a viewer shown a kept page again needs no read of their marks, until their own like changes them")
    func keptUntilLiked() async throws {
        let likes = Likes()
        let (environment, repository, page) = Self.environment(likes: likes)
        let request = try PageRequest(limit: 20, cursor: nil)
        let other = UUID()
        func read() async throws -> [Card] { try await ReadFeed(environment)(.latest, page: request, viewer: Self.viewer).cards }
        func probes() -> Int { repository.calls.withLock { $0.marks.count } }
        _ = try await ReadFeed(environment)(.latest, page: request, viewer: other)  // reads and keeps the shared page
        for _ in 0..<3 { _ = try await read() }
        #expect(probes() == 1, "one read of the viewer's marks for three pages")

        // The like drops the page showing the card (read again with the marks) and the viewer's marks.
        likes.withLock { $0 = [page.cards[1].id: 3] }
        _ = try await LikeCard(environment)(true, cardID: page.cards[1].id, by: Self.viewer)
        #expect(try await read().map { $0.likedByMe } == [false, true, false])
        let liked = try await read()
        #expect(liked.map { $0.likedByMe } == [false, true, false])
        #expect(liked.map { $0.likeCount } == [2, 3, 2], "the count read with the new mark")
        #expect(probes() == 2, "the kept page needed the viewer's marks afresh")
        _ = try await read()
        #expect(probes() == 2)
        // Someone else's like drops the page, not this viewer's marks.
        _ = try await LikeCard(environment)(true, cardID: page.cards[0].id, by: other)
        for _ in 0..<2 { _ = try await read() }
        #expect(probes() == 2)
        // A report by the viewer, and a block either way, drop them.
        try await ReportCard(environment)(page.cards[2].id, reason: .abuse, by: Self.viewer)
        _ = try await read()
        #expect(probes() == 3)
        let people = PeopleEnvironment(people: InMemoryPeopleRepository(accounts: [Self.viewer, other]), viewerMarks: environment.viewerMarks)
        _ = try await BlockAccount(people)(true, target: Self.viewer, by: other)
        _ = try await read()
        #expect(probes() == 4)
    }

    @Test("a nearby page made from kept chunks is completed from kept marks, with the count the chunks' age calls for")
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
        // The chunks were read before the mark: the mark's count, not the chunk's 0.
        #expect(again.first?.likedByMe == true && again.first?.likeCount == 7)
        #expect(repository.calls.withLock { $0.marks.count } == 1, "the second page needed no read of the marks")
        // Chunks read after the mark (the old ones expired) count the like themselves.
        clock.withLock { $0 = $0.addingTimeInterval(1) }
        let later = try await read()
        #expect(later.first?.likedByMe == true && later.first?.likeCount == 0, "the double's chunks count no likes")
        #expect(repository.calls.withLock { $0.marks.count } == 1)
    }

    @Test("a viewer with a block or a report is read every time, and a block on the page reads their own page")
    func guardedViewer() async throws {
        let (environment, repository, _) = Self.environment(likes: Likes(), blocked: true)
        let request = try PageRequest(limit: 20, cursor: nil)
        _ = try await ReadFeed(environment)(.latest, page: request, viewer: UUID())
        for _ in 0..<3 { _ = try await ReadFeed(environment)(.latest, page: request, viewer: Self.viewer) }
        // The first reader's marks came with the shared page; each page read its own page.
        #expect(repository.calls.withLock { ($0.marks.count, $0.pages.count) } == (3, 4))
        #expect(environment.viewerMarks.count == 0)
    }
}
