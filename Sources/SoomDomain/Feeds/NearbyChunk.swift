import Foundation

/// A run of one nearby index prefix, as everyone sees it: the newest live top-level cards whose
/// cell lies in `Key.prefix` (a geohash prefix of `NearbyCover`), below `Key.after`, at most
/// `Key.size` of them, each with its cell's centre. Nothing in it depends on the reader: no
/// distance (every reader's point differs), no likes, no blocks; `likedByMe` and `isMine` are false.
///
/// `ReadFeed` builds a nearby page from the chunks of its cover's prefixes (`FeedPageCache` keeps
/// them), so that the readers of a city share what PostgreSQL read for the first of them.
public struct NearbyChunk: Sendable, Equatable {
    /// The prefix lengths chunks are read for: those with an index (see `NearbyStatements`).
    public static let indexedPrecisions = 3...6

    public let entries: [Entry]
    /// The size the chunk was read for; fewer entries mean the prefix holds nothing older.
    public let size: Int
    /// When its read began: set on kept chunks (see `FeedPage.readAt`); not part of the value.
    public let readAt: Date?

    public init(entries: [Entry], size: Int, readAt: Date? = nil) {
        self.entries = entries
        self.size = size
        self.readAt = readAt
    }

    public static func == (lhs: NearbyChunk, rhs: NearbyChunk) -> Bool {
        lhs.entries == rhs.entries && lhs.size == rhs.size
    }

    /// No card of the prefix is older than the last entry.
    public var isComplete: Bool { self.entries.count < self.size }

    /// Whether a story in it has expired at `now` (the chunk may no longer be served).
    public func hasExpired(at now: Date) -> Bool {
        self.entries.contains { $0.card.expiresAt.map { $0 <= now } ?? false }
    }

    /// Where the chunk ends: the position of its last entry (nil when empty).
    public var end: FeedPosition? { self.entries.last.map(\.position) }

    /// A card of the chunk: as everyone sees it, its keyset position and its cell's centre.
    public struct Entry: Sendable, Equatable {
        public let card: Card
        public let micros: Int64
        public let centre: GeoLocation
        /// What outer layers derive from this card as everyone sees it, once for every reader whose
        /// page shows it (`SharedMemos.cards`); set on the entries of a kept chunk
        /// (`FeedPageCache.store`), not part of the entry's value.
        public let memo: (any SharedMemo)?

        public init(card: Card, micros: Int64, centre: GeoLocation, memo: (any SharedMemo)? = nil) {
            self.card = card
            self.micros = micros
            self.centre = centre
            self.memo = memo
        }

        /// The same entry, with `memo` for what outer layers derive from it.
        func keeping(_ memo: (any SharedMemo)?) -> Entry {
            Entry(card: self.card, micros: self.micros, centre: self.centre, memo: memo)
        }

        public var position: FeedPosition { FeedPosition(createdAtMicros: self.micros, id: self.card.id) }

        public static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.card == rhs.card && lhs.micros == rhs.micros && lhs.centre == rhs.centre
        }
    }

    /// Which chunk: the prefix, the position it starts below (nil: the newest) and its size.
    public struct Key: Hashable, Sendable {
        public let prefix: String
        public let afterMicros: Int64?
        public let afterID: UUID?
        public let size: Int

        public init(prefix: String, after position: FeedPosition?, size: Int) {
            self.prefix = prefix
            self.afterMicros = position?.createdAtMicros
            self.afterID = position?.id
            self.size = size
        }

        public var after: FeedPosition? {
            guard let micros = self.afterMicros, let id = self.afterID else { return nil }
            return FeedPosition(createdAtMicros: micros, id: id)
        }
    }
}

extension FeedPosition {
    /// Newest-first order: whether `self` comes before `other` in a feed (created later, or at the
    /// same microsecond with a greater id: PostgreSQL compares UUIDs byte by byte, as here).
    public func precedes(_ other: FeedPosition) -> Bool {
        if self.createdAtMicros != other.createdAtMicros { return self.createdAtMicros > other.createdAtMicros }
        return withUnsafeBytes(of: self.id.uuid) { mine in
            withUnsafeBytes(of: other.id.uuid) { theirs in memcmp(mine.baseAddress!, theirs.baseAddress!, 16) > 0 }
        }
    }
}
