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
/// - This instance's own changes are never served stale: the use cases that change what a page
///   shows call `invalidateAll()` (a post, a deletion, a card hidden by reports, a withdrawal, a
///   new name or picture) or `invalidate(card:)` (a like) once the change is committed. A like
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
    /// Pages kept at most by default.
    public static let defaultCapacity = 512
    /// Bytes kept pages may take by default (see `cost(of:)`).
    public static let defaultByteBudget = 32 << 20
    /// Per-card changes remembered for refusing reads that began before them; a read older than
    /// the oldest remembered change is refused.
    public static let changeLogSize = 1024

    public let lifetime: TimeInterval
    /// Pages kept at most; when full, the expired ones go, and if that is not enough, all of them.
    public let capacity: Int
    public let byteBudget: Int
    private let storage = Mutex(Storage())

    private struct Storage {
        var entries: [Key: Entry] = [:]
        /// The sum of the entries' costs.
        var bytes = 0
        /// Moves on at every `invalidateAll`; a ticket from an older generation cannot store.
        var generation: UInt64 = 0
        /// Counts `invalidate(card:)` calls; `changes` holds the last `changeLogSize` of them.
        var sequence: UInt64 = 0
        var changes: [(sequence: UInt64, card: UUID)] = []
        /// When expired entries were last swept out.
        var sweptAt = Date.distantPast

        mutating func remove(_ key: Key) {
            if let entry = self.entries.removeValue(forKey: key) { self.bytes -= entry.cost }
        }

        mutating func removeAll() {
            self.entries.removeAll(keepingCapacity: true)
            self.bytes = 0
        }
    }

    private struct Entry {
        let page: FeedPage
        let readAt: Date
        let cost: Int
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
        guard self.isEnabled else { return nil }
        return self.storage.withLock { storage in
            guard let entry = storage.entries[key] else { return nil }
            guard self.isFresh(entry, at: now), !entry.page.cards.contains(where: { $0.expiresAt.map { $0 <= now } ?? false }) else {
                storage.remove(key)
                return nil
            }
            return entry.page
        }
    }

    /// Take this before reading a page to keep.
    public func ticket(at now: Date) -> Ticket {
        self.storage.withLock { Ticket(generation: $0.generation, sequence: $0.sequence, readAt: now) }
    }

    /// Keeps `page`, read with `ticket`, unless something it shows was invalidated since the ticket was taken.
    public func store(_ page: FeedPage, for key: Key, ticket: Ticket) {
        guard self.isEnabled else { return }
        let cost = Self.cost(of: page)
        guard cost <= self.byteBudget / 16 else { return }
        self.storage.withLock { storage in
            guard ticket.generation == storage.generation, Self.unchanged(page, since: ticket, in: storage) else { return }
            if let current = storage.entries[key], current.readAt > ticket.readAt { return }
            storage.remove(key)
            let now = ticket.readAt
            if storage.entries.count >= self.capacity || storage.bytes + cost > self.byteBudget || now.timeIntervalSince(storage.sweptAt) >= 1 {
                for (key, entry) in storage.entries where !self.isFresh(entry, at: now) { storage.remove(key) }
                storage.sweptAt = now
                if storage.entries.count >= self.capacity || storage.bytes + cost > self.byteBudget { storage.removeAll() }
            }
            // A fresh memo per kept page: what outer layers derive from it lives and dies with it.
            let kept = FeedPage(cards: page.cards, next: page.next, memo: SharedPageMemo())
            storage.entries[key] = Entry(page: kept, readAt: ticket.readAt, cost: cost)
            storage.bytes += cost
        }
    }

    /// Drops every page: after a change that may move cards onto or off pages, or change authors.
    public func invalidateAll() {
        guard self.isEnabled else { return }
        self.storage.withLock { storage in
            storage.generation &+= 1
            storage.removeAll()
        }
    }

    /// Drops the pages showing the card, and refuses reads begun before that show it: after a
    /// change to its counts only.
    public func invalidate(card id: UUID) {
        guard self.isEnabled else { return }
        self.storage.withLock { storage in
            storage.sequence &+= 1
            storage.changes.append((storage.sequence, id))
            if storage.changes.count > Self.changeLogSize { storage.changes.removeFirst(storage.changes.count - Self.changeLogSize) }
            let showing = storage.entries.compactMap { key, entry in entry.page.cards.contains { $0.id == id } ? key : nil }
            for key in showing { storage.remove(key) }
        }
    }

    /// How many pages are kept, and their estimated bytes (for tests).
    public var count: Int { self.storage.withLock { $0.entries.count } }
    public var bytes: Int { self.storage.withLock { $0.bytes } }

    /// An estimate of what keeping `page` costs: its cards' text twice (the cards, and the memo's
    /// encoded copy), and a fixed part per card for IDs, times, counts and the structure.
    public static func cost(of page: FeedPage) -> Int {
        page.cards.reduce(256) { total, card in
            total + 640 + 2 * (card.content.utf8.count + card.author.nickname.utf8.count + card.tags.reduce(0) { $0 + $1.utf8.count + 8 })
        }
    }

    /// Whether no card on `page` was invalidated since `ticket` (false when the log no longer reaches back that far).
    private static func unchanged(_ page: FeedPage, since ticket: Ticket, in storage: Storage) -> Bool {
        guard storage.sequence != ticket.sequence else { return true }
        guard let oldest = storage.changes.first, oldest.sequence <= ticket.sequence &+ 1 else { return false }
        let changed = Set(storage.changes.lazy.filter { $0.sequence > ticket.sequence }.map(\.card))
        return !page.cards.contains { changed.contains($0.id) }
    }

    private func isFresh(_ entry: Entry, at now: Date) -> Bool {
        now >= entry.readAt && now.timeIntervalSince(entry.readAt) < self.lifetime
    }
}
