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
///   new name or picture) or `invalidate(card:)` (a like) once the change is committed.
/// - Other instances' changes show here within `lifetime`.
/// - A story is never served past its expiry: a kept page holding an expired card is dropped.
/// - The age of a page counts from the moment its read *started*, and a read that started before
///   an invalidation is not kept (`Ticket`).
///
/// A lifetime of zero disables it.
public final class FeedPageCache: Sendable {
    /// The longest a shared page may be served after its read started.
    public static let maximumLifetime: TimeInterval = 1
    /// Pages kept at most by default (about 20 KB each with twenty cards).
    public static let defaultCapacity = 512

    public let lifetime: TimeInterval
    /// Pages kept at most; when full, the expired ones go, and if none has expired, all of them.
    public let capacity: Int
    private let storage = Mutex(Storage())

    private struct Storage {
        var entries: [Key: Entry] = [:]
        /// Moves on at every invalidation; a ticket from an older generation cannot store.
        var generation: UInt64 = 0
    }

    private struct Entry {
        let page: FeedPage
        let readAt: Date
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

    /// Taken before a read; `store` keeps the read's page only if nothing was invalidated since.
    public struct Ticket: Sendable {
        let generation: UInt64
        let readAt: Date
    }

    /// - Parameter lifetime: clamped to 0…1 second; 0 turns the cache off.
    public init(lifetime: TimeInterval, capacity: Int = FeedPageCache.defaultCapacity) {
        self.lifetime = min(max(lifetime, 0), Self.maximumLifetime)
        self.capacity = max(capacity, 1)
    }

    public var isEnabled: Bool { self.lifetime > 0 }

    /// The kept page for `key` if it is younger than `lifetime` at `now` and none of its cards has expired.
    public func page(_ key: Key, at now: Date) -> FeedPage? {
        guard self.isEnabled else { return nil }
        return self.storage.withLock { storage in
            guard let entry = storage.entries[key] else { return nil }
            guard self.isFresh(entry, at: now), !entry.page.cards.contains(where: { $0.expiresAt.map { $0 <= now } ?? false }) else {
                storage.entries[key] = nil
                return nil
            }
            return entry.page
        }
    }

    /// Take this before reading a page to keep.
    public func ticket(at now: Date) -> Ticket {
        Ticket(generation: self.storage.withLock { $0.generation }, readAt: now)
    }

    /// Keeps `page`, read with `ticket`, unless something was invalidated since the ticket was taken.
    public func store(_ page: FeedPage, for key: Key, ticket: Ticket) {
        guard self.isEnabled else { return }
        self.storage.withLock { storage in
            guard ticket.generation == storage.generation else { return }
            if let current = storage.entries[key], current.readAt > ticket.readAt { return }
            if storage.entries[key] == nil, storage.entries.count >= self.capacity {
                storage.entries = storage.entries.filter { self.isFresh($0.value, at: ticket.readAt) }
                if storage.entries.count >= self.capacity { storage.entries.removeAll(keepingCapacity: true) }
            }
            // A fresh memo per kept page: what outer layers derive from it lives and dies with it.
            storage.entries[key] = Entry(page: FeedPage(cards: page.cards, next: page.next, memo: SharedPageMemo()), readAt: ticket.readAt)
        }
    }

    /// Drops every page: after a change that may move cards onto or off pages, or change authors.
    public func invalidateAll() {
        guard self.isEnabled else { return }
        self.storage.withLock { storage in
            storage.generation &+= 1
            storage.entries.removeAll(keepingCapacity: true)
        }
    }

    /// Drops the pages showing the card: after a change to its counts only.
    public func invalidate(card id: UUID) {
        guard self.isEnabled else { return }
        self.storage.withLock { storage in
            storage.generation &+= 1
            storage.entries = storage.entries.filter { entry in !entry.value.page.cards.contains { $0.id == id } }
        }
    }

    /// How many pages are kept (for tests).
    public var count: Int { self.storage.withLock { $0.entries.count } }

    private func isFresh(_ entry: Entry, at now: Date) -> Bool {
        now >= entry.readAt && now.timeIntervalSince(entry.readAt) < self.lifetime
    }
}
