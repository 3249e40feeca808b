import Foundation
import Synchronization

/// Values read from PostgreSQL, kept in memory for a short `lifetime` and kept honest by
/// invalidation: the one mechanism behind `SessionCache` and `FeedPageCache`, which only say what
/// their keys, values and tags are.
///
/// - **Invalidation.** Whoever changes what a kept value shows calls `invalidate` once the change
///   is committed, and a LISTEN/NOTIFY listener calls it for other instances' changes: by tag
///   (`Change.tag`: every value whose `tags` hold it, such as an account's sessions or the pages
///   showing a card), by key (`Change.keys`), or everything (`invalidateAll`).
/// - **Tickets.** A read that started before an invalidation must not put back what the
///   invalidation removed: `ticket()` is taken before the read, and `store` refuses the value if a
///   change since then affects it. The last `changeLogSize` changes are remembered; a ticket older
///   than that is refused whatever the value.
/// - **Listening.** A cache whose invalidations come by notification works only while its listener
///   is connected: `suspend()` empties it and stops storing until `resume()`.
/// - **Age and validity.** A value is served while younger than `lifetime`, counted from when its
///   read started, and while `isServable(value, now)` holds (a session before its expiry, a page
///   with no expired story). A value read after `now` (by a reader whose clock was read earlier) is
///   not served at `now`, but not dropped either: it is the newest there is.
/// - **One read per key.** `lookUp` and `claim` give a key that is not kept to one reader, whose
///   read the others `awaitValue`; `lookUp` and `values` hand a kept value in its last
///   `1 - refreshAhead` of life to one reader to read again in the background. Whoever is given a
///   read must `land` it, whatever happens.
/// - **Memory.** At most `capacity` values and `byteBudget` bytes (as `store`'s caller costs them;
///   a value over a sixteenth of the budget is not kept). Values older than `lifetime` are swept
///   out at most once a second; when full between sweeps, arbitrary ones go.
public final class InvalidatedCache<Key: Hashable & Sendable, Value: Sendable, Tag: Hashable & Sendable>: Sendable {
    /// What changed; see `invalidate(_:)`.
    public enum Change: Sendable {
        /// The values whose `tags` hold this one.
        case tag(Tag)
        /// The values kept under the keys for which this is true.
        case keys(@Sendable (Key) -> Bool)
    }

    /// Proof of what had been invalidated when a read began; see `store`.
    public struct Ticket: Sendable {
        fileprivate let generation: UInt64
        fileprivate let sequence: UInt64
    }

    /// What a reader of one key does (`lookUp`).
    public enum Lookup: Sendable {
        /// The kept value serves. With `refresh`, it is in its last part of life and now claimed for
        /// this reader, who reads it again in the background and must `land` it.
        case kept(Value, refresh: Bool)
        /// Nobody keeps or reads it: this reader reads it, `store`s it and must `land` it.
        case read
        /// Another reader is reading it: `awaitValue`.
        case wait
    }

    /// The longest a value is served after its read began; 0 turns the cache off.
    public let lifetime: TimeInterval
    public let capacity: Int
    public let byteBudget: Int
    public let changeLogSize: Int
    /// The share of `lifetime` after which a kept value still in use is read again.
    public let refreshAhead: Double
    private let tags: @Sendable (Value) -> [Tag]
    private let isServable: @Sendable (Value, Date) -> Bool
    private let storage: Mutex<Storage>

    private struct Entry {
        let value: Value
        let tags: [Tag]
        let readAt: Date
        let cost: Int
    }

    private struct Storage {
        var entries: [Key: Entry] = [:]
        var keysByTag: [Tag: Set<Key>] = [:]
        /// The sum of the entries' costs.
        var bytes = 0
        /// Moves on at every `invalidateAll`, `suspend` and `resume`: an older ticket cannot store.
        var generation: UInt64 = 0
        /// Counts the changes of `invalidate`; `changes` holds the last `changeLogSize` of them.
        var sequence: UInt64 = 0
        var changes: [(sequence: UInt64, change: Change)] = []
        var listening: Bool
        /// When values older than the lifetime were last swept out.
        var sweptAt = Date.distantPast
        /// Keys being read by one reader, and the readers waiting for that read.
        var flights: [Key: [CheckedContinuation<Value?, Never>]] = [:]

        mutating func insert(_ entry: Entry, for key: Key) {
            self.entries[key] = entry
            self.bytes += entry.cost
            for tag in entry.tags { self.keysByTag[tag, default: []].insert(key) }
        }

        mutating func remove(_ key: Key) {
            guard let entry = self.entries.removeValue(forKey: key) else { return }
            self.bytes -= entry.cost
            for tag in entry.tags {
                self.keysByTag[tag]?.remove(key)
                if self.keysByTag[tag]?.isEmpty == true { self.keysByTag[tag] = nil }
            }
        }

        /// Forgets every value; reads begun before cannot store.
        mutating func removeAll() {
            self.generation &+= 1
            self.entries.removeAll(keepingCapacity: true)
            self.keysByTag.removeAll(keepingCapacity: true)
            self.bytes = 0
        }
    }

    /// - Parameters:
    ///   - lifetime: seconds a value is served after its read began; 0 turns the cache off.
    ///   - listening: whether it works from the start, or only after `resume()`.
    ///   - tags: what a value shows, for `Change.tag`.
    ///   - isServable: whether a value may still be served at a time (beyond its age).
    public init(
        lifetime: TimeInterval, capacity: Int, byteBudget: Int = .max, changeLogSize: Int = 1024, refreshAhead: Double = 0.75,
        listening: Bool = true, tags: @escaping @Sendable (Value) -> [Tag],
        isServable: @escaping @Sendable (Value, Date) -> Bool = { _, _ in true }
    ) {
        self.lifetime = max(lifetime, 0)
        self.capacity = max(capacity, 1)
        self.byteBudget = max(byteBudget, 1)
        self.changeLogSize = max(changeLogSize, 1)
        self.refreshAhead = refreshAhead
        self.tags = tags
        self.isServable = isServable
        self.storage = Mutex(Storage(listening: listening))
    }

    /// Whether values are kept and served: a positive lifetime, and listening.
    public var isActive: Bool {
        self.lifetime > 0 && self.storage.withLock { $0.listening }
    }

    /// How many values are kept, and their cost (for tests and metrics).
    public var count: Int { self.storage.withLock { $0.entries.count } }
    public var bytes: Int { self.storage.withLock { $0.bytes } }

    // MARK: Reading

    /// The value kept for `key`, if it may be served at `now`.
    public func value(_ key: Key, at now: Date) -> Value? {
        guard self.lifetime > 0 else { return nil }
        return self.storage.withLock { self.servable(key, at: now, in: &$0)?.value }
    }

    /// The value for `key`, or who reads it; see `Lookup`. So when a value many read expires, one
    /// of them reads it and the others wait for that read instead of all reading it at once, and a
    /// value in use is read again before it expires, so that nobody waits at all.
    public func lookUp(_ key: Key, at now: Date) -> Lookup {
        guard self.lifetime > 0 else { return .read }
        return self.storage.withLock { storage in
            let flying = storage.flights[key] != nil
            if let entry = self.servable(key, at: now, in: &storage) {
                guard self.isDue(entry, at: now), !flying else { return .kept(entry.value, refresh: false) }
                storage.flights[key] = []
                return .kept(entry.value, refresh: true)
            }
            if flying { return .wait }
            storage.flights[key] = []
            return .read
        }
    }

    /// The values kept for `keys`, in order (nil where none may be served), under one lock; and
    /// `due`: those in their last part of life that nobody is reading yet, now claimed for the
    /// caller, who reads them again in the background and must `land` each.
    public func values(_ keys: [Key], at now: Date) -> (values: [Value?], due: [Key]) {
        guard self.lifetime > 0 else { return (keys.map { _ in nil }, []) }
        return self.storage.withLock { storage in
            var due: [Key] = []
            let values = keys.map { key -> Value? in
                guard let entry = self.servable(key, at: now, in: &storage) else { return nil }
                if self.isDue(entry, at: now), storage.flights[key] == nil {
                    storage.flights[key] = []
                    due.append(key)
                }
                return entry.value
            }
            return (values, due)
        }
    }

    /// For keys not kept: which of `keys` the caller must read (nobody else is reading them; it must
    /// `land` each, whatever happens) and which someone else is reading (`awaitValue`).
    public func claim(_ keys: [Key]) -> (mine: [Key], others: [Key]) {
        self.storage.withLock { storage in
            var mine: [Key] = []
            var others: [Key] = []
            for key in keys {
                if storage.flights[key] != nil {
                    others.append(key)
                } else {
                    storage.flights[key] = []
                    mine.append(key)
                }
            }
            return (mine, others)
        }
    }

    /// Ends the caller's read of `key`: `value` is what `store` kept (nil if the read failed or the
    /// value was not kept), handed to every reader waiting for it.
    public func land(_ key: Key, with value: Value?) {
        let waiting = self.storage.withLock { $0.flights.removeValue(forKey: key) } ?? []
        for waiter in waiting { waiter.resume(returning: value) }
    }

    /// What the read of `key` lands with, or what is kept if it has landed already; nil when that
    /// read failed or was not kept, or when the value may not be served at `now`.
    public func awaitValue(_ key: Key, at now: Date) async -> Value? {
        let value = await withCheckedContinuation { continuation in
            let resumeNow = self.storage.withLock { storage in
                guard storage.flights[key] != nil else { return true }
                storage.flights[key]!.append(continuation)
                return false
            }
            if resumeNow { continuation.resume(returning: self.value(key, at: now)) }
        }
        guard let value, self.isServable(value, now) else { return nil }
        return value
    }

    /// The entry for `key` if it may be served at `now`; an expired one is dropped.
    private func servable(_ key: Key, at now: Date, in storage: inout Storage) -> Entry? {
        guard storage.listening, let entry = storage.entries[key], now >= entry.readAt else { return nil }
        guard now.timeIntervalSince(entry.readAt) < self.lifetime, self.isServable(entry.value, now) else {
            storage.remove(key)
            return nil
        }
        return entry
    }

    private func isDue(_ entry: Entry, at now: Date) -> Bool {
        now.timeIntervalSince(entry.readAt) >= self.lifetime * self.refreshAhead
    }

    // MARK: Storing

    /// Take this before a read whose value is to be kept.
    public func ticket() -> Ticket {
        self.storage.withLock { Ticket(generation: $0.generation, sequence: $0.sequence) }
    }

    /// Keeps `value`, whose read began at `readAt` with `ticket`, unless a change since the ticket
    /// affects it, a newer read is kept, the cache is off or not listening, or it costs over a
    /// sixteenth of the budget; whether it was kept.
    @discardableResult
    public func store(_ value: Value, for key: Key, readAt: Date, cost: Int = 1, ticket: Ticket) -> Bool {
        guard self.lifetime > 0, cost <= self.byteBudget / 16 else { return false }
        let entry = Entry(value: value, tags: self.tags(value), readAt: readAt, cost: cost)
        return self.storage.withLock { storage in
            guard storage.listening, ticket.generation == storage.generation, self.unchanged(entry, key: key, since: ticket, in: storage)
            else { return false }
            if let current = storage.entries[key], current.readAt > readAt { return false }
            storage.remove(key)
            self.makeRoom(for: cost, at: readAt, in: &storage)
            storage.insert(entry, for: key)
            return true
        }
    }

    private func makeRoom(for cost: Int, at now: Date, in storage: inout Storage) {
        func isFull(_ storage: Storage) -> Bool { storage.entries.count >= self.capacity || storage.bytes + cost > self.byteBudget }
        // Older than the lifetime (a value read after `now` is not), swept at most once a second:
        // a sweep visits every value, and a full cache would otherwise sweep on every store.
        if now.timeIntervalSince(storage.sweptAt) >= 1 {
            let old = storage.entries.compactMap { key, entry in now.timeIntervalSince(entry.readAt) >= self.lifetime ? key : nil }
            for key in old { storage.remove(key) }
            storage.sweptAt = now
        }
        while isFull(storage), let victim = storage.entries.keys.first { storage.remove(victim) }
    }

    /// Whether no change since `ticket` affects `entry` (false when the log no longer reaches back that far).
    private func unchanged(_ entry: Entry, key: Key, since ticket: Ticket, in storage: Storage) -> Bool {
        guard storage.sequence != ticket.sequence else { return true }
        guard let oldest = storage.changes.first, oldest.sequence <= ticket.sequence &+ 1 else { return false }
        var changedTags = Set<Tag>()
        for (sequence, change) in storage.changes where sequence > ticket.sequence {
            switch change {
            case .tag(let tag): changedTags.insert(tag)
            case .keys(let affects): if affects(key) { return false }
            }
        }
        return changedTags.isEmpty || !entry.tags.contains { changedTags.contains($0) }
    }

    // MARK: Invalidating

    /// Drops what `changes` affect and refuses the same of reads begun before, all at once.
    public func invalidate(_ changes: Change...) {
        guard self.lifetime > 0 else { return }
        self.storage.withLock { storage in
            for change in changes {
                storage.sequence &+= 1
                storage.changes.append((storage.sequence, change))
                let affected: [Key] =
                    switch change {
                    case .tag(let tag): Array(storage.keysByTag[tag] ?? [])
                    case .keys(let affects): storage.entries.keys.filter(affects)
                    }
                for key in affected { storage.remove(key) }
            }
            if storage.changes.count > self.changeLogSize { storage.changes.removeFirst(storage.changes.count - self.changeLogSize) }
        }
    }

    /// Drops every value and refuses every read begun before, but keeps working: after a change
    /// that may affect anything.
    public func invalidateAll() {
        guard self.lifetime > 0 else { return }
        self.storage.withLock { $0.removeAll() }
    }

    /// The listener is connected (again): from now on every change is heard, so values may be kept.
    public func resume() {
        self.storage.withLock { storage in
            storage.generation &+= 1
            storage.listening = true
        }
    }

    /// The listener lost its connection: changes may go unheard, so forget everything and keep
    /// nothing until `resume()`.
    public func suspend() {
        self.storage.withLock { storage in
            storage.listening = false
            storage.removeAll()
        }
    }
}
