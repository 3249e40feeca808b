import Foundation
import Synchronization

/// Pages of the feeds that look the same to everyone (`latest` and a tag's), kept for at most
/// `lifetime` (never more than a second) so that a page many people open at once is read from
/// PostgreSQL once.
///
/// What is kept is the *shared* page: the cards as a viewer with no likes and no blocks sees them.
/// `ReadFeed` completes it for each viewer with one small read (`CardRepository.viewerMarks`):
/// `likedByMe`, and whether a block between the viewer and an author on the page requires the
/// exact per-viewer read. `isMine` is the author's ID. So likes and blocks are always current;
/// what may be up to `lifetime` old is the shared part: which cards are on the page, their text,
/// counts and authors' names and pictures.
///
/// It also keeps the nearby feed's shared part, `NearbyChunk`s: the newest cards of one index
/// prefix, from which `ReadFeed` makes any reader's page around any point in memory.
///
/// - This instance's own changes are never served stale: the use cases that change what a page
///   shows call, once the change is committed, `invalidatePost(in:replyingTo:)` (a post: every
///   page, and the chunks of the new card's cell), `invalidateAll()` (a deletion, a card hidden
///   by reports, a withdrawal, a new name or picture) or `invalidate(card:)` (a like). A like
///   drops only the pages showing that card and refuses only reads that included it.
/// - Other instances' changes show here within `lifetime`.
/// - A story is never served past its expiry: a kept page holding an expired card is dropped.
/// - The age of a page counts from the moment its read *started*, and a read that started before
///   an invalidation is not kept (`Ticket`).
///
/// Memory is bounded by `capacity` pages and `byteBudget` (estimated from the cards' text, twice:
/// the cards and what `SharedPageMemo` keeps); a page larger than a sixteenth of the budget is not
/// kept. A lifetime of zero disables it.
public final class FeedPageCache: Sendable {
    /// The longest a shared page may be served after its read started.
    public static let maximumLifetime: TimeInterval = 1
    /// Pages and chunks kept at most by default.
    public static let defaultCapacity = 2048
    /// Bytes kept pages may take by default (see `cost(of:)`).
    public static let defaultByteBudget = 32 << 20
    /// Per-card changes remembered for refusing reads that began before them; a read older than
    /// the oldest remembered change is refused.
    public static let changeLogSize = 1024
    /// The share of `lifetime` after which a kept chunk still in use is read again ahead of its
    /// expiry (`chunks(_:at:)`): a quarter of the lifetime is left for that read to land.
    public static let refreshAhead = 0.75

    public let lifetime: TimeInterval
    /// Pages kept at most; when full, the expired ones go, and if that is not enough, all of them.
    public let capacity: Int
    public let byteBudget: Int
    private let storage = Mutex(Storage())

    private struct Storage {
        var entries: [StoreKey: Entry] = [:]
        /// The sum of the entries' costs.
        var bytes = 0
        /// Moves on at every `invalidateAll`; a ticket from an older generation cannot store.
        var generation: UInt64 = 0
        /// Counts `invalidate(card:)` and `invalidatePost(in:replyingTo:)` calls; `changes` holds
        /// the last `changeLogSize` of them.
        var sequence: UInt64 = 0
        var changes: [(sequence: UInt64, change: Change)] = []
        /// When expired entries were last swept out.
        var sweptAt = Date.distantPast
        /// Pages and chunks being read by one reader, and the readers waiting for them (`claim`,
        /// `lookUp`, and the read-ahead claims of `chunks(_:at:)` and `lookUp`).
        var flights: [StoreKey: [CheckedContinuation<Kept?, Never>]] = [:]

        mutating func remove(_ key: StoreKey) {
            if let entry = self.entries.removeValue(forKey: key) { self.bytes -= entry.cost }
        }

        mutating func removeAll() {
            self.entries.removeAll(keepingCapacity: true)
            self.bytes = 0
        }
    }

    /// What a kept entry is: a shared page, or a nearby chunk.
    private enum StoreKey: Hashable {
        case page(Key)
        case chunk(NearbyChunk.Key)
    }

    private enum Kept {
        case page(FeedPage)
        case chunk(NearbyChunk)

        /// Whether it shows a story past its expiry at `now`.
        func hasExpired(at now: Date) -> Bool {
            switch self {
            case .page(let page): page.cards.contains { $0.expiresAt.map { $0 <= now } ?? false }
            case .chunk(let chunk): chunk.hasExpired(at: now)
            }
        }
    }

    private enum Change {
        /// A card's counts changed, or it left the feeds.
        case card(UUID)
        /// A card was posted: every shared page may change, and the chunks of the prefixes of its
        /// cell when it is a located top-level card.
        case post(cell: String?)
    }

    private struct Entry {
        let kept: Kept
        let readAt: Date
        let cost: Int

        var cards: [Card] {
            switch self.kept {
            case .page(let page): page.cards
            case .chunk(let chunk): chunk.entries.map(\.card)
            }
        }

        func holds(_ id: UUID) -> Bool {
            switch self.kept {
            case .page(let page): page.cards.contains { $0.id == id }
            case .chunk(let chunk): chunk.entries.contains { $0.card.id == id }
            }
        }

        func hasExpired(at now: Date) -> Bool { self.kept.hasExpired(at: now) }
    }

    /// Which page: the feed, where it starts and how many cards it holds.
    public struct Key: Hashable, Sendable {
        let scope: String
        let afterMicros: Int64?
        let afterID: UUID?
        let limit: Int

        /// Nil for a feed whose pages differ between viewers (only `latest` and tag feeds are shared).
        public init?(_ feed: Feed, after position: FeedPosition?, limit: Int) {
            switch feed {
            case .latest, .tag: break
            case .popular, .nearby, .author, .comments, .following: return nil
            }
            self.scope = feed.scope
            self.afterMicros = position?.createdAtMicros
            self.afterID = position?.id
            self.limit = limit
        }
    }

    /// Taken before a read; `store` keeps the read's page only if nothing it shows was invalidated since.
    public struct Ticket: Sendable {
        let generation: UInt64
        let sequence: UInt64
        let readAt: Date
    }

    /// - Parameter lifetime: clamped to 0…1 second; 0 turns the cache off.
    public init(lifetime: TimeInterval, capacity: Int = FeedPageCache.defaultCapacity, byteBudget: Int = FeedPageCache.defaultByteBudget) {
        self.lifetime = min(max(lifetime, 0), Self.maximumLifetime)
        self.capacity = max(capacity, 1)
        self.byteBudget = max(byteBudget, 1)
    }

    public var isEnabled: Bool { self.lifetime > 0 }

    /// The kept page for `key` if it is younger than `lifetime` at `now` and none of its cards has expired.
    public func page(_ key: Key, at now: Date) -> FeedPage? {
        guard case .page(let page) = self.kept(.page(key), at: now) else { return nil }
        return page
    }

    /// The kept nearby chunk for `key`, under the same rules as a page.
    public func chunk(_ key: NearbyChunk.Key, at now: Date) -> NearbyChunk? {
        guard case .chunk(let chunk) = self.kept(.chunk(key), at: now) else { return nil }
        return chunk
    }

    /// The kept chunks for `keys`, in order (nil where none is kept), under one lock; and `due`:
    /// those of them older than `refreshAhead` of the lifetime that nobody is reading yet, now
    /// claimed for the caller, who reads them again in the background and must `land` each.
    ///
    /// So a chunk many readers use is replaced before it expires, while they go on using it: none
    /// of them waits for its read, and chunks of many places do not all expire and get read at
    /// the same moment. A chunk nobody asks for in its last quarter expires as before.
    public func chunks(_ keys: [NearbyChunk.Key], at now: Date) -> (chunks: [NearbyChunk?], due: [NearbyChunk.Key]) {
        guard self.isEnabled else { return (keys.map { _ in nil }, []) }
        return self.storage.withLock { storage in
            var due: [NearbyChunk.Key] = []
            let chunks = keys.map { key -> NearbyChunk? in
                guard let entry = self.keptEntry(.chunk(key), at: now, in: &storage), case .chunk(let chunk) = entry.kept else { return nil }
                if self.isDue(entry, at: now), storage.flights[.chunk(key)] == nil {
                    storage.flights[.chunk(key)] = []
                    due.append(key)
                }
                return chunk
            }
            return (chunks, due)
        }
    }

    /// What a reader of a shared page does (`lookUp`).
    public enum PageLookup: Sendable {
        /// The kept page serves. With `refresh`, it is in its last quarter of life and now claimed
        /// for this reader, who reads it again in the background and must `land` it.
        case kept(FeedPage, refresh: Bool)
        /// Nobody keeps or reads it: this reader reads it, `store`s it and must `land` it, whatever happens.
        case read
        /// Another reader is reading it: `awaitPage`.
        case wait
    }

    /// The shared page for `key`, or who reads it: like `chunks(_:at:)` and `claim(_:)` for a
    /// page. So when a page many people read expires, one of them reads it and the others wait
    /// for that read instead of all reading it at once (they would stall together, every
    /// lifetime); and a page in use is read again before it expires, so that nobody waits at all.
    public func lookUp(_ key: Key, at now: Date) -> PageLookup {
        guard self.isEnabled else { return .read }
        return self.storage.withLock { storage in
            let flying = storage.flights[.page(key)] != nil
            if let entry = self.keptEntry(.page(key), at: now, in: &storage), case .page(let page) = entry.kept {
                guard self.isDue(entry, at: now), !flying else { return .kept(page, refresh: false) }
                storage.flights[.page(key)] = []
                return .kept(page, refresh: true)
            }
            if flying { return .wait }
            storage.flights[.page(key)] = []
            return .read
        }
    }

    /// Ends the caller's read of a page it was given to read by `lookUp`: `page` is what `store`
    /// kept (nil if the read failed or was not kept), handed to every reader waiting for it.
    public func land(_ key: Key, with page: FeedPage?) {
        self.land(.page(key), with: page.map(Kept.page))
    }

    /// The page someone else is reading, once they have it; nil when their read failed or was not
    /// kept, or when a story on it has expired at `now` (read it yourself then).
    public func awaitPage(_ key: Key, at now: Date) async -> FeedPage? {
        guard case .page(let page) = await self.awaitFlight(.page(key), at: now) else { return nil }
        return page
    }

    /// Whether a kept entry is in the last quarter of its life (`refreshAhead`).
    private func isDue(_ entry: Entry, at now: Date) -> Bool {
        now.timeIntervalSince(entry.readAt) >= self.lifetime * Self.refreshAhead
    }

    private func kept(_ key: StoreKey, at now: Date) -> Kept? {
        guard self.isEnabled else { return nil }
        return self.storage.withLock { self.kept(key, at: now, in: &$0) }
    }

    private func kept(_ key: StoreKey, at now: Date, in storage: inout Storage) -> Kept? {
        self.keptEntry(key, at: now, in: &storage)?.kept
    }

    /// The entry for `key` if it may be served at `now`; an expired one is dropped.
    private func keptEntry(_ key: StoreKey, at now: Date, in storage: inout Storage) -> Entry? {
        guard let entry = storage.entries[key] else { return nil }
        // Read after `now` (by a reader whose clock was read earlier): not served at `now`, but
        // not dropped either — it is the newest there is.
        guard now >= entry.readAt else { return nil }
        guard self.isFresh(entry, at: now), !entry.hasExpired(at: now) else {
            storage.remove(key)
            return nil
        }
        return entry
    }

    /// Take this before reading a page to keep.
    public func ticket(at now: Date) -> Ticket {
        self.storage.withLock { Ticket(generation: $0.generation, sequence: $0.sequence, readAt: now) }
    }

    /// Keeps `page`, read with `ticket`, unless something it shows was invalidated since the
    /// ticket was taken; the page as kept (hand it to waiting readers: `land`), or nil.
    @discardableResult
    public func store(_ page: FeedPage, for key: Key, ticket: Ticket) -> FeedPage? {
        // A fresh memo per kept page: what outer layers derive from it lives and dies with it.
        let kept = FeedPage(cards: page.cards, next: page.next, shared: .page(SharedPageMemo()))
        return self.keep(.page(kept), for: .page(key), cost: Self.cost(of: page), ticket: ticket) ? kept : nil
    }

    /// Keeps `chunk`, read with `ticket`, unless a card it shows changed or a card was posted in
    /// its prefix since the ticket was taken; whether it was kept (hand it to waiting readers
    /// only then: `land`).
    @discardableResult
    public func store(_ chunk: NearbyChunk, for key: NearbyChunk.Key, ticket: Ticket) -> Bool {
        self.keep(.chunk(chunk), for: .chunk(key), cost: Self.cost(of: chunk.entries.map(\.card)), ticket: ticket)
    }

    @discardableResult
    private func keep(_ kept: Kept, for key: StoreKey, cost: Int, ticket: Ticket) -> Bool {
        guard self.isEnabled, cost <= self.byteBudget / 16 else { return false }
        let entry = Entry(kept: kept, readAt: ticket.readAt, cost: cost)
        return self.storage.withLock { storage in
            guard ticket.generation == storage.generation, Self.unchanged(entry, key: key, since: ticket, in: storage) else { return false }
            if let current = storage.entries[key], current.readAt > ticket.readAt { return false }
            storage.remove(key)
            let now = ticket.readAt
            if storage.entries.count >= self.capacity || storage.bytes + cost > self.byteBudget || now.timeIntervalSince(storage.sweptAt) >= 1 {
                // Older than the lifetime: an entry read after this ticket's read began is not.
                for (key, entry) in storage.entries where now.timeIntervalSince(entry.readAt) >= self.lifetime { storage.remove(key) }
                storage.sweptAt = now
                if storage.entries.count >= self.capacity || storage.bytes + cost > self.byteBudget { storage.removeAll() }
            }
            storage.entries[key] = entry
            storage.bytes += cost
            return true
        }
    }

    /// For chunks not kept: which of `keys` the caller must read (nobody else is reading them; it
    /// must call `land` for each, whatever happens) and which are being read by someone else
    /// (`awaitChunk`). So when a kept chunk expires under many readers, one of them reads it
    /// again and the others wait for that read instead of all reading it at once.
    public func claim(_ keys: [NearbyChunk.Key]) -> (mine: [NearbyChunk.Key], others: [NearbyChunk.Key]) {
        self.storage.withLock { storage in
            var mine: [NearbyChunk.Key] = []
            var others: [NearbyChunk.Key] = []
            for key in keys {
                if storage.flights[.chunk(key)] != nil {
                    others.append(key)
                } else {
                    storage.flights[.chunk(key)] = []
                    mine.append(key)
                }
            }
            return (mine, others)
        }
    }

    /// Ends the caller's read of a claimed chunk: `chunk` is what it read and `store` kept (nil if
    /// the read failed or the chunk was not kept — a change since the read began, say), handed to
    /// every reader waiting for it.
    public func land(_ key: NearbyChunk.Key, with chunk: NearbyChunk?) {
        self.land(.chunk(key), with: chunk.map(Kept.chunk))
    }

    private func land(_ key: StoreKey, with kept: Kept?) {
        let waiting = self.storage.withLock { $0.flights.removeValue(forKey: key) } ?? []
        for waiter in waiting { waiter.resume(returning: kept) }
    }

    /// The chunk someone else is reading, once they have it; nil when their read failed or was
    /// not kept, when it ended before this call and the chunk is not kept, or when a story in it
    /// has expired at `now`.
    public func awaitChunk(_ key: NearbyChunk.Key, at now: Date) async -> NearbyChunk? {
        guard case .chunk(let chunk) = await self.awaitFlight(.chunk(key), at: now) else { return nil }
        return chunk
    }

    /// What the flight for `key` lands with, or what is kept if it has landed already; nil when a
    /// story in it has expired at `now`.
    private func awaitFlight(_ key: StoreKey, at now: Date) async -> Kept? {
        let kept = await withCheckedContinuation { continuation in
            let resumeNow = self.storage.withLock { storage in
                guard storage.flights[key] != nil else { return true }
                storage.flights[key]!.append(continuation)
                return false
            }
            if resumeNow { continuation.resume(returning: self.kept(key, at: now)) }
        }
        guard let kept, !kept.hasExpired(at: now) else { return nil }
        return kept
    }

    /// Drops every page and chunk: after a change that may move cards onto or off pages, or change authors.
    public func invalidateAll() {
        guard self.isEnabled else { return }
        self.storage.withLock { storage in
            storage.generation &+= 1
            storage.removeAll()
        }
    }

    /// Drops the pages and chunks showing the card, and refuses reads begun before that show it:
    /// after a change to its counts only.
    public func invalidate(card id: UUID) {
        guard self.isEnabled else { return }
        self.storage.withLock { storage in
            Self.log(.card(id), in: &storage)
            let showing = storage.entries.compactMap { key, entry in entry.holds(id) ? key : nil }
            for key in showing { storage.remove(key) }
        }
    }

    /// After a card was posted: drops every shared page, the chunks of the prefixes of `cell` (a
    /// located top-level card's cell key; nil otherwise) and what shows `parent` (whose comment
    /// count moved), and refuses the same of reads begun before. The chunks of other places stay:
    /// a post in one city does not empty the nearby feeds of every other.
    public func invalidatePost(in cell: String?, replyingTo parent: UUID?) {
        guard self.isEnabled else { return }
        self.storage.withLock { storage in
            Self.log(.post(cell: cell), in: &storage)
            if let parent { Self.log(.card(parent), in: &storage) }
            let dropped = storage.entries.compactMap { key, entry in
                Self.affected(key, by: .post(cell: cell)) || parent.map(entry.holds) == true ? key : nil
            }
            for key in dropped { storage.remove(key) }
        }
    }

    /// How many pages are kept, and their estimated bytes (for tests).
    public var count: Int { self.storage.withLock { $0.entries.count } }
    public var bytes: Int { self.storage.withLock { $0.bytes } }

    /// An estimate of what keeping `page` costs: its cards' text twice (the cards, and the memo's
    /// encoded copy), and a fixed part per card for IDs, times, counts and the structure.
    public static func cost(of page: FeedPage) -> Int {
        Self.cost(of: page.cards)
    }

    static func cost(of cards: [Card]) -> Int {
        cards.reduce(256) { total, card in
            total + 640 + 2 * (card.content.utf8.count + card.author.nickname.utf8.count + card.tags.reduce(0) { $0 + $1.utf8.count + 8 })
        }
    }

    private static func log(_ change: Change, in storage: inout Storage) {
        storage.sequence &+= 1
        storage.changes.append((storage.sequence, change))
        if storage.changes.count > Self.changeLogSize { storage.changes.removeFirst(storage.changes.count - Self.changeLogSize) }
    }

    /// Whether a post changes what is kept under `key`.
    private static func affected(_ key: StoreKey, by change: Change) -> Bool {
        switch (key, change) {
        case (_, .card): false
        case (.page, .post): true
        case (.chunk(let chunk), .post(let cell)): cell?.hasPrefix(chunk.prefix) == true
        }
    }

    /// Whether nothing `entry` shows was invalidated since `ticket` (false when the log no longer reaches back that far).
    private static func unchanged(_ entry: Entry, key: StoreKey, since ticket: Ticket, in storage: Storage) -> Bool {
        guard storage.sequence != ticket.sequence else { return true }
        guard let oldest = storage.changes.first, oldest.sequence <= ticket.sequence &+ 1 else { return false }
        var changedCards = Set<UUID>()
        for (sequence, change) in storage.changes where sequence > ticket.sequence {
            if case .card(let id) = change { changedCards.insert(id) } else if Self.affected(key, by: change) { return false }
        }
        return changedCards.isEmpty || !entry.cards.contains { changedCards.contains($0.id) }
    }

    private func isFresh(_ entry: Entry, at now: Date) -> Bool {
        now >= entry.readAt && now.timeIntervalSince(entry.readAt) < self.lifetime
    }
}
