import Foundation
import SoomDomain
import Synchronization
import Testing

/// The nearby feed made in memory from shared chunks (`ReadFeed.nearbyFromChunks`), against the
/// feed's definition computed by brute force over the same cards.
@Suite("Nearby pages from shared chunks")
struct NearbyChunkTests {
    static let viewer = UUID()
    static let seoul = try! GeoLocation(latitude: 37.5665, longitude: 126.9780)
    static let start: Int64 = 1_800_000_000_000_000

    /// A located card at `point`'s cell, posted `micros` after `start`.
    static func entry(at point: GeoLocation, micros: Int64, author: UserSummary = FeedPageCacheTests.author, expiresAt: Date? = nil)
        -> NearbyChunk.Entry
    {
        let cell = GeoCell(containing: point)
        let card = Card(
            id: UUID(), content: "가까이", font: .default, background: .builtIn(name: "sea-calm"), tags: [], author: author, parentID: nil,
            parentDeleted: false, createdAt: Date(timeIntervalSince1970: Double(Self.start + micros) / 1e6), expiresAt: expiresAt, likeCount: 0,
            commentCount: 0, likedByMe: false, isMine: false, distanceMeters: nil)
        return NearbyChunk.Entry(
            card: card, micros: Self.start + micros, centre: try! GeoLocation(latitude: cell.latitude, longitude: cell.longitude))
    }

    /// Cards around Seoul as a city has them: dense in the centre, thinning out to 60 km, some at
    /// the same microsecond (ties are broken by id).
    static func city(_ count: Int, seed: UInt64) -> [NearbyChunk.Entry] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { index in
            let reach = Double.random(in: 0...1, using: &random)
            let distance = reach * reach * 0.55  // degrees; most within a few km
            let angle = Double.random(in: 0..<(2 * .pi), using: &random)
            let point = try! GeoLocation(
                latitude: Self.seoul.latitude + distance * sin(angle), longitude: Self.seoul.longitude + distance * cos(angle) * 1.26)
            return Self.entry(at: point, micros: Int64(index / 3) * 1_000)
        }
    }

    static func environment(_ repository: RecordingCardRepository) -> CardEnvironment {
        CardEnvironment(
            cards: repository, feedPages: FeedPageCache(lifetime: 1, memos: CountingMemo.maker), now: { Date(timeIntervalSince1970: 1_900_000_000) })
    }

    /// Every page of the feed, through cursors.
    static func walk(_ feed: Feed, limit: Int, in environment: CardEnvironment) async throws -> [Card] {
        var cards: [Card] = []
        var cursor: String?
        repeat {
            let page = try await ReadFeed(environment)(feed, page: try PageRequest(limit: limit, cursor: cursor), viewer: Self.viewer)
            cards += page.cards
            cursor = page.nextCursor
        } while cursor != nil
        return cards
    }

    @Test("every page at every radius, walked to the end from several points, is the feed's definition: the same cards, order and bands")
    func matchesTheDefinition() async throws {
        let repository = RecordingCardRepository(located: Self.city(1_200, seed: 17))
        let environment = Self.environment(repository)
        var random = SplitMix64(seed: 4)
        for radius in NearbyRadius.allCases {
            for _ in 0..<2 {
                let point = try GeoLocation(
                    latitude: Self.seoul.latitude + Double.random(in: -0.1...0.1, using: &random),
                    longitude: Self.seoul.longitude + Double.random(in: -0.1...0.1, using: &random))
                let limit = [3, 7, 20, 50].randomElement(using: &random)!
                let walked = try await Self.walk(.nearby(point, radius), limit: limit, in: environment)
                let expected = repository.nearby(around: point, radius: radius, after: nil)
                #expect(walked.map(\.id) == expected.map(\.entry.card.id), "radius \(radius.rawValue) km, limit \(limit)")
                #expect(walked.map(\.distanceMeters) == expected.map { Double(DistanceBand.metres($0.distance)) })
            }
        }
        // Nearly every page came from chunks: the exact read is the exception.
        let (pages, chunkReads, marks) = repository.calls.withLock { ($0.pages.count, $0.chunkReads.count, $0.marks.count) }
        #expect(marks > 0 && chunkReads > 0)
        #expect(pages * 20 < marks, "exact reads: \(pages), pages from chunks: \(marks)")
    }

    @Test("readers of one city share its chunks: a second reader elsewhere in it reads only their marks")
    func shared() async throws {
        let repository = RecordingCardRepository(located: Self.city(500, seed: 5))
        let environment = Self.environment(repository)
        let first = try await ReadFeed(environment)(.nearby(Self.seoul, .five), page: try PageRequest(limit: 20, cursor: nil), viewer: Self.viewer)
        #expect(first.cards.count == 20)
        let reads = repository.calls.withLock { $0.chunkReads.count }
        let nearby = try GeoLocation(latitude: Self.seoul.latitude + 0.002, longitude: Self.seoul.longitude - 0.002)
        let second = try await ReadFeed(environment)(.nearby(nearby, .five), page: try PageRequest(limit: 20, cursor: nil), viewer: UUID())
        #expect(second.cards.map(\.id) == repository.nearby(around: nearby, radius: .five, after: nil).prefix(20).map(\.entry.card.id))
        #expect(repository.calls.withLock { ($0.chunkReads.count, $0.pages.count, $0.marks.count) } == (reads, 0, 2))
        // Each card carries its chunk entry's memo, so its encoded form is shared too.
        guard case .cards(let memos) = second.shared else {
            Issue.record("no memos: \(String(describing: second.shared))")
            return
        }
        #expect(memos.count == second.cards.count)
    }

    @Test("a post drops the chunks of its cell's prefixes and no others; the next page shows it")
    func postInvalidates() async throws {
        let repository = RecordingCardRepository(located: Self.city(300, seed: 6))
        let environment = Self.environment(repository)
        let busan = try GeoLocation(latitude: 35.1796, longitude: 129.0756)
        repository.located.withLock { $0.append(Self.entry(at: busan, micros: 1)) }
        let request = try PageRequest(limit: 20, cursor: nil)
        _ = try await ReadFeed(environment)(.nearby(Self.seoul, .one), page: request, viewer: Self.viewer)
        _ = try await ReadFeed(environment)(.nearby(busan, .one), page: request, viewer: Self.viewer)
        let reads = repository.calls.withLock { $0.chunkReads.count }

        // Posted in Busan: Seoul's chunks stay.
        let posted = Self.entry(at: busan, micros: 10_000_000_000)
        repository.located.withLock { $0.append(posted) }
        environment.feedPages.invalidatePost(in: GeoCell(containing: busan).key, replyingTo: nil)
        _ = try await ReadFeed(environment)(.nearby(Self.seoul, .one), page: request, viewer: Self.viewer)
        #expect(repository.calls.withLock { $0.chunkReads.count } == reads)
        let page = try await ReadFeed(environment)(.nearby(busan, .one), page: request, viewer: Self.viewer)
        #expect(page.cards.first?.id == posted.card.id)
        #expect(repository.calls.withLock { $0.chunkReads.count } == reads + 1)
    }

    @Test("a block between the viewer and an author on the page reads the viewer's own page")
    func blocked() async throws {
        let repository = RecordingCardRepository(marks: { _ in ViewerMarks(liked: [:], blocked: true) }, located: Self.city(50, seed: 7))
        let page = try await ReadFeed(Self.environment(repository))(
            .nearby(Self.seoul, .ten), page: try PageRequest(limit: 20, cursor: nil), viewer: Self.viewer)
        #expect(page.cards.map(\.id) == repository.nearby(around: Self.seoul, radius: .ten, after: nil).prefix(20).map(\.entry.card.id))
        #expect(repository.calls.withLock { ($0.chunkReads.count, $0.pages.count) } == (1, 1))
    }

    @Test("a chunk that is not kept is read by one reader; the others wait for that read, or read exactly when it fails")
    func singleFlight() async throws {
        let cache = FeedPageCache(lifetime: 1)
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        let key = NearbyChunk.Key(prefix: "wydm9", after: nil, size: 21)
        let other = NearbyChunk.Key(prefix: "wydm8", after: nil, size: 21)
        #expect(cache.claim([key]) == ([key], []))
        #expect(cache.claim([key, other]) == ([other], [key]))
        let chunk = NearbyChunk(entries: [Self.entry(at: Self.seoul, micros: 1)], size: 21)
        async let waited = cache.awaitChunk(key, at: now)
        try await Task.sleep(for: .milliseconds(50))
        cache.land(key, with: chunk)
        #expect(await waited == chunk)
        // Landed: the key may be claimed again.
        #expect(cache.claim([key]) == ([key], []))
        async let failed = cache.awaitChunk(key, at: now)
        try await Task.sleep(for: .milliseconds(50))
        cache.land(key, with: nil)
        #expect(await failed == nil)
        cache.land(other, with: nil)
        // Nobody is reading it: the answer is what is kept (nothing), at once.
        #expect(await cache.awaitChunk(other, at: now) == nil)
    }

    @Test(
        "a chunk in its last quarter of life is read again in the background: readers never wait for it, and a change from elsewhere shows within the lifetime"
    )
    func refreshAhead() async throws {
        let repository = RecordingCardRepository(located: Self.city(300, seed: 8))
        let start = Date(timeIntervalSince1970: 1_900_000_000)
        let clock = Mutex(start)
        let environment = CardEnvironment(cards: repository, feedPages: FeedPageCache(lifetime: 1), now: { clock.withLock { $0 } })
        let request = try PageRequest(limit: 20, cursor: nil)
        func page() async throws -> [UUID] {
            try await ReadFeed(environment)(.nearby(Self.seoul, .five), page: request, viewer: Self.viewer).cards.map(\.id)
        }
        func reads() -> Int { repository.calls.withLock { $0.chunkReads.count } }

        let first = try await page()
        let read = reads()
        #expect(read == 1)
        // Posted through another instance: nothing here drops the chunks.
        let posted = Self.entry(at: Self.seoul, micros: 10_000_000_000)
        repository.located.withLock { $0.append(posted) }

        clock.withLock { $0 = start.addingTimeInterval(0.5) }
        #expect(try await page() == first)
        #expect(reads() == read, "not yet due")

        clock.withLock { $0 = start.addingTimeInterval(0.8) }
        #expect(try await page() == first, "served from the kept chunks at once")
        let deadline = ContinuousClock.now + .seconds(5)
        while reads() == read, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(reads() == read + 1, "read again once, in the background")
        // The read-ahead is claimed for every chunk of the page: this waits until it has landed.
        for prefix in NearbyCover(around: Self.seoul, radius: .five).prefixes {
            #expect(
                await environment.feedPages.awaitChunk(NearbyChunk.Key(prefix: prefix, after: nil, size: 21), at: start.addingTimeInterval(1.2))
                    != nil)
        }

        // Within the lifetime of the first read, the read-ahead chunks already show the post.
        clock.withLock { $0 = start.addingTimeInterval(0.9) }
        #expect(try await page().first == posted.card.id)

        // Past the first chunks' expiry: the read-ahead ones serve.
        clock.withLock { $0 = start.addingTimeInterval(1.2) }
        #expect(try await page().first == posted.card.id)
        #expect(reads() == read + 1, "no reader read in the foreground")
        #expect(repository.calls.withLock { $0.pages.count } == 0)
    }

    @Test("a chunk read before a change, or holding a story expired for the waiter, is not handed to the readers waiting for it")
    func waitersGetOnlyWhatIsKept() async throws {
        let cache = FeedPageCache(lifetime: 1)
        let start = Date(timeIntervalSince1970: 1_900_000_000)
        let cell = GeoCell(containing: Self.seoul)
        let key = NearbyChunk.Key(prefix: String(cell.key.prefix(5)), after: nil, size: 21)
        let old = NearbyChunk(entries: [Self.entry(at: Self.seoul, micros: 1)], size: 21)
        #expect(cache.store(old, for: key, ticket: cache.ticket(at: start)) == old)

        // A read-ahead begins; a post in the prefix lands meanwhile and drops the kept chunk.
        #expect(cache.chunks([key], at: start.addingTimeInterval(0.8)).due == [key])
        let ticket = cache.ticket(at: start.addingTimeInterval(0.8))
        cache.invalidatePost(in: cell.key, replyingTo: nil)
        #expect(cache.chunks([key], at: start.addingTimeInterval(0.85)).chunks == [nil])
        #expect(cache.claim([key]) == ([], [key]), "the read-ahead is still under way")
        async let waited = cache.awaitChunk(key, at: start.addingTimeInterval(0.85))
        try await Task.sleep(for: .milliseconds(50))
        let kept = cache.store(old, for: key, ticket: ticket)
        #expect(kept == nil, "read before the post")
        cache.land(key, with: kept)
        #expect(await waited == nil, "the waiter reads its page exactly, and sees the post")

        // A story that expired before the waiter's time is not served to it, even from a fresh read.
        let story = NearbyChunk(entries: [Self.entry(at: Self.seoul, micros: 2, expiresAt: start.addingTimeInterval(2.5))], size: 21)
        #expect(cache.claim([key]) == ([key], []))
        async let late = cache.awaitChunk(key, at: start.addingTimeInterval(3))
        try await Task.sleep(for: .milliseconds(50))
        #expect(cache.store(story, for: key, ticket: cache.ticket(at: start.addingTimeInterval(2))) == story)
        cache.land(key, with: story)
        #expect(await late == nil)

        // A chunk read after a reader's clock was read is not served to that reader, and not dropped.
        #expect(cache.chunks([key], at: start.addingTimeInterval(1.9)).chunks == [nil])
        #expect(cache.chunks([key], at: start.addingTimeInterval(2.1)).chunks == [story])
    }

    @Test("positions order as PostgreSQL orders (created_at, id) descending: time first, then the id's bytes")
    func order() throws {
        let low = UUID(uuidString: "00000000-0000-4000-8000-0000000000ff")!
        let high = UUID(uuidString: "ff000000-0000-4000-8000-000000000000")!
        #expect(FeedPosition(createdAtMicros: 2, id: low).precedes(FeedPosition(createdAtMicros: 1, id: high)))
        #expect(FeedPosition(createdAtMicros: 1, id: high).precedes(FeedPosition(createdAtMicros: 1, id: low)))
        #expect(!FeedPosition(createdAtMicros: 1, id: low).precedes(FeedPosition(createdAtMicros: 1, id: low)))
    }
}
