import Foundation
import SoomDomain
import Testing

/// The mechanism behind the session, feed page and tag ranking caches, with plain keys and tags.
@Suite("Invalidated cache: tags, key changes, tickets and listening")
struct InvalidatedCacheTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Values are strings; a value's tags are its characters.
    static func cache(lifetime: TimeInterval = 1, changeLogSize: Int = 1024, listening: Bool = true) -> InvalidatedCache<Int, String, Character> {
        InvalidatedCache(lifetime: lifetime, capacity: 100, changeLogSize: changeLogSize, listening: listening, tags: { Array($0) })
    }

    @Test("a tag drops every value holding it and only those")
    func tags() {
        let cache = Self.cache()
        for (key, value) in [1: "ab", 2: "bc", 3: "cd"] { cache.store(value, for: key, readAt: Self.start, ticket: cache.ticket()) }
        cache.invalidate(.tag("b"))
        #expect([1, 2, 3].map { cache.value($0, at: Self.start) } == [nil, nil, "cd"])
        // The index follows the values: a value stored again under a key is tagged by its own tags.
        cache.store("xy", for: 3, readAt: Self.start, ticket: cache.ticket())
        cache.invalidate(.tag("c"))
        #expect(cache.value(3, at: Self.start) == "xy")
    }

    @Test("a change refuses only the reads begun before it that it affects")
    func tickets() {
        let cache = Self.cache()
        let ticket = cache.ticket()
        cache.invalidate(.tag("a"), .keys { $0 > 10 })
        #expect(!cache.store("ab", for: 1, readAt: Self.start, ticket: ticket), "holds the tag")
        #expect(!cache.store("zz", for: 11, readAt: Self.start, ticket: ticket), "under an affected key")
        #expect(cache.store("zz", for: 1, readAt: Self.start, ticket: ticket), "neither")
        #expect(cache.store("ab", for: 2, readAt: Self.start, ticket: cache.ticket()), "begun after the change")

        let everything = cache.ticket()
        cache.invalidateAll()
        #expect(cache.count == 0)
        #expect(!cache.store("zz", for: 3, readAt: Self.start, ticket: everything))
    }

    @Test("a read older than the change log is refused whatever it holds")
    func changeLog() {
        let cache = Self.cache(changeLogSize: 2)
        let ticket = cache.ticket()
        for tag in "xyz" { cache.invalidate(.tag(tag)) }
        #expect(!cache.store("ab", for: 1, readAt: Self.start, ticket: ticket))
        let recent = cache.ticket()
        cache.invalidate(.tag("x"))
        #expect(cache.store("ab", for: 1, readAt: Self.start, ticket: recent))
    }

    @Test("nothing is kept or served while not listening, and reads begun before a reconnect are refused")
    func listening() {
        let cache = Self.cache(listening: false)
        #expect(!cache.isActive)
        #expect(!cache.store("a", for: 1, readAt: Self.start, ticket: cache.ticket()))
        let beforeResume = cache.ticket()
        cache.resume()
        #expect(cache.isActive)
        #expect(!cache.store("a", for: 1, readAt: Self.start, ticket: beforeResume))
        #expect(cache.store("a", for: 1, readAt: Self.start, ticket: cache.ticket()))
        cache.suspend()
        #expect(cache.value(1, at: Self.start) == nil)
        #expect(cache.count == 0)
    }

    @Test("one reader reads a missing key; the others wait for what it lands")
    func singleFlight() async {
        let cache = Self.cache()
        guard case .read = cache.lookUp(1, at: Self.start) else {
            Issue.record("the first reader reads")
            return
        }
        guard case .wait = cache.lookUp(1, at: Self.start) else {
            Issue.record("the second waits")
            return
        }
        async let waited = cache.awaitValue(1, at: Self.start)
        try? await Task.sleep(for: .milliseconds(20))
        cache.store("a", for: 1, readAt: Self.start, ticket: cache.ticket())
        cache.land(1, with: "a")
        #expect(await waited == "a")
        guard case .kept("a", refresh: true) = cache.lookUp(1, at: Self.start.addingTimeInterval(0.8)) else {
            Issue.record("a value in its last quarter is read again by one reader")
            return
        }
        guard case .kept("a", refresh: false) = cache.lookUp(1, at: Self.start.addingTimeInterval(0.8)) else {
            Issue.record("and only one")
            return
        }
        cache.land(1, with: nil)
    }
}
