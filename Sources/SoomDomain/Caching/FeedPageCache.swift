import Foundation

/// What readers share, kept for at most `lifetime` (never more than a second) so that what many
/// people open at once is read from PostgreSQL once: single cards as everyone sees them
/// (`KeptCard`: no likes, no blocks; `likedByMe` and `isMine` false), which cards a page of a feed
/// holds (`KeptPositions`: per reader for the following feed), and the nearby feed's
/// `NearbyChunk`s (the newest cards of one index prefix). `ReadFeed` makes every reader's page
/// from them and completes it with the reader's marks (`ViewerMarkCache`), so likes and blocks are
/// always current; what may be up to `lifetime` old is the shared part: which cards a page holds,
/// their text, counts and authors' names and pictures.
///
/// - This instance's own changes are never served stale: every write that changes what is kept
///   invalidates it once committed (`InvalidatingCardRepository` and its siblings, the one place
///   that decides): a post drops the first pages of every feed (later pages hold only older cards)
///   and the chunks of the new card's cell, and the card it answers; a like drops the card (and the
///   chunk showing it), never a page; a deletion, a card hidden by reports, a withdrawal, a new
///   name or picture drop everything. A viewer's follows and blocks drop their following feed's
///   positions, on every instance (`invalidate(viewer:)`).
/// - Other instances' changes show here within `lifetime`.
/// - A story is never served past its expiry: a kept card or chunk holding an expired card is dropped.
/// - The age of a kept thing counts from the moment its read *started*, and a read that started
///   before an invalidation is not kept (`Ticket`).
///
/// Memory is bounded by `capacity` entries and `byteBudget` (estimated from the cards' text,
/// twice: the cards and what their `SharedMemo`s keep). A lifetime of zero disables it.
///
/// The mechanism (tickets, single flight, read-ahead, memory bounds) is `InvalidatedCache`'s:
/// entries by key, tagged with their cards' IDs.
public final class FeedPageCache: Sendable {
    /// The longest a shared page may be served after its read started.
    public static let maximumLifetime: TimeInterval = 1
    /// Entries kept at most by default (a card, a page's positions or a chunk is one).
    public static let defaultCapacity = 16_384
    /// Bytes kept entries may take by default (see `cost(of:)`).
    public static let defaultByteBudget = 32 << 20
    /// Changes remembered for refusing reads that began before them; a read older than the oldest
    /// remembered change is refused.
    public static let changeLogSize = 1024
    /// The share of `lifetime` after which a kept entry still in use is read again ahead of its
    /// expiry: a quarter of the lifetime is left for that read to land.
    public static let refreshAhead = 0.75

    /// What outer layers keep with each kept card and chunk entry.
    public let memos: SharedMemoMaker
    private let kept: InvalidatedCache<StoreKey, Kept, UUID>

    /// What a kept entry is: a card, a page's positions, or a nearby chunk.
    fileprivate enum StoreKey: Hashable, Sendable {
        case chunk(NearbyChunk.Key)
        case card(UUID)
        case positions(PositionsKey)

        /// The chunk's key, if this is one.
        var chunkKey: NearbyChunk.Key? {
            if case .chunk(let key) = self { key } else { nil }
        }

        /// The card's ID, if this is one.
        var cardID: UUID? {
            if case .card(let id) = self { id } else { nil }
        }

        /// Whether a post in `cell` (nil: not a located top-level card) changes what is kept here
        /// (a card a post answers is invalidated by its tag). A post is the newest card of every
        /// feed it joins, so only first pages change: a later page holds cards older than its cursor.
        func isChanged(byPostIn cell: String?) -> Bool {
            switch self {
            case .chunk(let chunk): cell?.hasPrefix(chunk.prefix) == true
            case .card: false
            case .positions(let key): key.isFirstPage
            }
        }

        /// Whether this is one viewer's positions (of their following feed).
        var isViewersPositions: Bool {
            if case .positions(let key) = self { key.viewer != nil } else { false }
        }
    }

    fileprivate enum Kept: Sendable {
        case chunk(NearbyChunk)
        case card(KeptCard)
        case positions(KeptPositions)

        var chunk: NearbyChunk? {
            if case .chunk(let chunk) = self { chunk } else { nil }
        }

        var card: KeptCard? {
            if case .card(let card) = self { card } else { nil }
        }

        var positions: KeptPositions? {
            if case .positions(let positions) = self { positions } else { nil }
        }

        /// What invalidates it: its cards' IDs; for one viewer's positions, the viewer's account ID
        /// (their follows and blocks change which cards their pages hold; a like changes nothing).
        var tags: [UUID] {
            switch self {
            case .chunk(let chunk): chunk.entries.map(\.card.id)
            case .card(let kept): [kept.card.id]
            case .positions(let kept): kept.viewer.map { [$0] } ?? []
            }
        }

        /// Whether it shows a story past its expiry at `now`.
        func hasExpired(at now: Date) -> Bool {
            switch self {
            case .chunk(let chunk): chunk.hasExpired(at: now)
            case .card(let kept): kept.card.expiresAt.map { $0 <= now } ?? false
            // A story expired since: its kept card is gone, so the page is read exactly (`pageFromCards`).
            case .positions: false
            }
        }
    }

    /// Which page's positions (`KeptPositions`): the feed, the viewer for a feed whose positions
    /// are theirs alone (following), where it starts and how many cards it holds.
    public struct PositionsKey: Hashable, Sendable {
        let scope: String
        let viewer: UUID?
        let afterMicros: Int64?
        let afterID: UUID?
        let afterGeneration: Int64?
        let afterRank: Int?
        let limit: Int

        /// The key of a page of `feed` (one whose source is a `PositionSource`); `viewer` is the
        /// reader whose positions they are, nil when they are the same for everyone.
        public init(_ feed: Feed, viewer: UUID?, after position: FeedPosition?, limit: Int) {
            self.viewer = viewer
            self.scope = feed.scope
            self.afterMicros = position?.createdAtMicros
            self.afterID = position?.id
            self.afterGeneration = position?.ranking?.generation
            self.afterRank = position?.ranking?.rank
            self.limit = limit
        }

        /// Whether these positions are the same for every viewer.
        public var isShared: Bool { self.viewer == nil }

        /// Whether this is a feed's first page.
        var isFirstPage: Bool { self.afterID == nil && self.afterRank == nil }
    }

    /// Taken before a read; `store` keeps the read's page only if nothing it shows was invalidated since.
    public struct Ticket: Sendable {
        fileprivate let ticket: InvalidatedCache<StoreKey, Kept, UUID>.Ticket
        let readAt: Date
    }

    /// - Parameters:
    ///   - lifetime: clamped to 0…1 second; 0 turns the cache off.
    ///   - memos: what outer layers keep with each kept card and chunk entry (none by default).
    public init(
        lifetime: TimeInterval, capacity: Int = FeedPageCache.defaultCapacity, byteBudget: Int = FeedPageCache.defaultByteBudget,
        memos: SharedMemoMaker = .none
    ) {
        self.memos = memos
        self.kept = InvalidatedCache(
            lifetime: min(max(lifetime, 0), Self.maximumLifetime), capacity: capacity, byteBudget: byteBudget,
            changeLogSize: Self.changeLogSize, refreshAhead: Self.refreshAhead, tags: { $0.tags },
            isServable: { !$0.hasExpired(at: $1) })
    }

    public var lifetime: TimeInterval { self.kept.lifetime }
    /// Entries kept at most; when full, the expired ones go, and if that is not enough, arbitrary ones.
    public var capacity: Int { self.kept.capacity }
    public var byteBudget: Int { self.kept.byteBudget }
    public var isEnabled: Bool { self.lifetime > 0 }

    /// How many entries are kept, and their estimated bytes (for tests).
    public var count: Int { self.kept.count }
    public var bytes: Int { self.kept.bytes }

    /// Take this before reading anything to keep.
    public func ticket(at now: Date) -> Ticket {
        Ticket(ticket: self.kept.ticket(), readAt: now)
    }

    // MARK: Nearby chunks

    /// The kept nearby chunk for `key`, under the same rules as a page.
    public func chunk(_ key: NearbyChunk.Key, at now: Date) -> NearbyChunk? {
        self.kept.value(.chunk(key), at: now)?.chunk
    }

    /// The kept chunks for `keys`, in order (nil where none is kept), under one lock; and `due`:
    /// those of them older than `refreshAhead` of the lifetime that nobody is reading yet, now
    /// claimed for the caller, who reads them again in the background and must `land` each.
    ///
    /// So a chunk many readers use is replaced before it expires, while they go on using it: none
    /// of them waits for its read, and chunks of many places do not all expire and get read at
    /// the same moment. A chunk nobody asks for in its last quarter expires as before.
    public func chunks(_ keys: [NearbyChunk.Key], at now: Date) -> (chunks: [NearbyChunk?], due: [NearbyChunk.Key]) {
        let (values, due) = self.kept.values(keys.map(StoreKey.chunk), at: now)
        return (values.map { $0?.chunk }, due.compactMap(\.chunkKey))
    }

    /// Keeps `chunk`, read with `ticket`, unless a card it shows changed or a card was posted in
    /// its prefix since the ticket was taken; the chunk as kept, with a memo per entry (hand it to
    /// waiting readers: `land`), or nil.
    @discardableResult
    public func store(_ chunk: NearbyChunk, for key: NearbyChunk.Key, ticket: Ticket) -> NearbyChunk? {
        // A fresh memo per kept entry: what outer layers derive from a card lives and dies with it.
        let kept = NearbyChunk(entries: chunk.entries.map { $0.keeping(self.memos.card()) }, size: chunk.size, readAt: ticket.readAt)
        let cost = Self.cost(of: chunk.entries.map(\.card))
        return self.kept.store(.chunk(kept), for: .chunk(key), readAt: ticket.readAt, cost: cost, ticket: ticket.ticket) ? kept : nil
    }

    /// For chunks not kept: which of `keys` the caller must read (nobody else is reading them; it
    /// must call `land` for each, whatever happens) and which are being read by someone else
    /// (`awaitChunk`). So when a kept chunk expires under many readers, one of them reads it
    /// again and the others wait for that read instead of all reading it at once.
    public func claim(_ keys: [NearbyChunk.Key]) -> (mine: [NearbyChunk.Key], others: [NearbyChunk.Key]) {
        let (mine, others) = self.kept.claim(keys.map(StoreKey.chunk))
        return (mine.compactMap(\.chunkKey), others.compactMap(\.chunkKey))
    }

    /// Ends the caller's read of a claimed chunk: `chunk` is what `store` kept (nil if the read
    /// failed or the chunk was not kept — a change since the read began, say), handed to every
    /// reader waiting for it.
    public func land(_ key: NearbyChunk.Key, with chunk: NearbyChunk?) {
        self.kept.land(.chunk(key), with: chunk.map(Kept.chunk))
    }

    /// The chunk someone else is reading, once they have it; nil when their read failed or was
    /// not kept, when it ended before this call and the chunk is not kept, or when a story in it
    /// has expired at `now`.
    public func awaitChunk(_ key: NearbyChunk.Key, at now: Date) async -> NearbyChunk? {
        await self.kept.awaitValue(.chunk(key), at: now)?.chunk
    }

    // MARK: Cards

    /// The kept cards for `ids`, in order (nil where none is kept), under one lock; and `due`: those
    /// of them in their last quarter of life that nobody is reading yet, now claimed for the
    /// caller, who reads them again in the background and must `land` each (as `chunks(_:at:)`).
    public func cards(_ ids: [UUID], at now: Date) -> (cards: [KeptCard?], due: [UUID]) {
        let (values, due) = self.kept.values(ids.map(StoreKey.card), at: now)
        return (values.map { $0?.card }, due.compactMap(\.cardID))
    }

    /// For cards not kept: which of `ids` the caller must read (it must `land` each, whatever
    /// happens) and which someone else is reading (`awaitCard`), as `claim(_:)` for chunks.
    public func claimCards(_ ids: [UUID]) -> (mine: [UUID], others: [UUID]) {
        let (mine, others) = self.kept.claim(ids.map(StoreKey.card))
        return (mine.compactMap(\.cardID), others.compactMap(\.cardID))
    }

    /// Keeps `card` (as everyone sees it), read with `ticket`, unless it changed since the ticket
    /// was taken; the card as kept, with its memo (hand it to waiting readers: `land`), or nil.
    @discardableResult
    public func store(_ card: Card, ticket: Ticket) -> KeptCard? {
        let kept = KeptCard(card: card, memo: self.memos.card(), readAt: ticket.readAt)
        return self.kept.store(.card(kept), for: .card(card.id), readAt: ticket.readAt, cost: Self.cost(of: [card]), ticket: ticket.ticket)
            ? kept : nil
    }

    /// Ends the caller's read of a claimed card: `card` is what `store` kept (nil if the read
    /// failed, found no live card, or was not kept), handed to every reader waiting for it.
    public func land(card id: UUID, with card: KeptCard?) {
        self.kept.land(.card(id), with: card.map(Kept.card))
    }

    /// The card someone else is reading, once they have it; nil when their read failed or was not
    /// kept, or when the card is a story that has expired at `now`.
    public func awaitCard(_ id: UUID, at now: Date) async -> KeptCard? {
        await self.kept.awaitValue(.card(id), at: now)?.card
    }

    // MARK: Positions

    /// The kept positions for `key` (`Kept`), or who reads them, as `lookUp` for pages: one reader
    /// reads positions not kept while the others wait (`awaitPositions`), and positions in use are
    /// read again ahead of their expiry by the reader told to `refresh`. The caller must `land`
    /// what it was given to read.
    public func lookUp(_ key: PositionsKey, at now: Date) -> PositionsLookup {
        switch self.kept.lookUp(.positions(key), at: now) {
        // A positions key keeps positions; anything else would be read again.
        case .kept(let kept, let refresh): kept.positions.map { .kept($0.positions, refresh: refresh) } ?? .read
        case .read: .read
        case .wait: .wait
        }
    }

    /// What a reader of a page's positions does (`lookUp(_:at:)` for a `PositionsKey`).
    public enum PositionsLookup: Sendable {
        /// Kept; with `refresh`, claimed for this reader to read again in the background and `land`.
        case kept([FeedPosition], refresh: Bool)
        /// This reader reads them, `store`s them and must `land` them, whatever happens.
        case read
        /// Another reader is reading them: `awaitPositions`.
        case wait
    }

    /// Keeps `positions`, read with `ticket`, unless the viewer of `key` (if any) was invalidated
    /// since the ticket was taken, or a card was posted or removed on this instance; whether kept.
    @discardableResult
    public func store(_ positions: [FeedPosition], for key: PositionsKey, ticket: Ticket) -> Bool {
        let kept = KeptPositions(positions: positions, viewer: key.viewer)
        return self.kept.store(.positions(kept), for: .positions(key), readAt: ticket.readAt, cost: Self.cost(of: positions), ticket: ticket.ticket)
    }

    /// Ends the caller's read of positions it was given to read by `lookUp`: `positions` are what
    /// it kept (nil if the read failed or was not kept), handed to every reader waiting for them.
    public func land(_ key: PositionsKey, with positions: [FeedPosition]?) {
        self.kept.land(.positions(key), with: positions.map { .positions(KeptPositions(positions: $0, viewer: key.viewer)) })
    }

    /// The positions someone else is reading, once they have them; nil when their read failed or was not kept.
    public func awaitPositions(_ key: PositionsKey, at now: Date) async -> [FeedPosition]? {
        await self.kept.awaitValue(.positions(key), at: now)?.positions?.positions
    }

    static func cost(of positions: [FeedPosition]) -> Int { 128 + 48 * positions.count }

    // MARK: Invalidation

    /// Drops everything: after a change that may move cards onto or off pages, or change authors.
    public func invalidateAll() {
        self.kept.invalidateAll()
    }

    /// Drops the kept card and the chunks showing it, and refuses reads begun before that show it:
    /// after a change to its counts only. Pages keep their positions.
    public func invalidate(card id: UUID) {
        self.kept.invalidate(.tag(id))
    }

    /// Drops the positions of `viewer`'s pages (of their following feed), and refuses reads of them
    /// begun before: they followed, unfollowed, blocked or were blocked (here, or on another
    /// instance: `SessionInvalidationListener`).
    public func invalidate(viewer: UUID) {
        self.kept.invalidate(.tag(viewer))
    }

    /// Drops every viewer's positions: a change that named no account (`*` on the marks' channel).
    public func invalidateViewers() {
        self.kept.invalidate(.keys { $0.isViewersPositions })
    }

    /// After a card was posted: drops the first pages' positions, the chunks of the prefixes of
    /// `cell` (a located top-level card's cell key; nil otherwise) and what shows `parent` (whose
    /// comment count moved), and refuses the same of reads begun before. Later pages and the chunks
    /// of other places stay: a post in one city does not empty the nearby feeds of every other.
    public func invalidatePost(in cell: String?, replyingTo parent: UUID?) {
        let post = InvalidatedCache<StoreKey, Kept, UUID>.Change.keys { $0.isChanged(byPostIn: cell) }
        if let parent { self.kept.invalidate(post, .tag(parent)) } else { self.kept.invalidate(post) }
    }

    /// An estimate of what keeping `cards` costs: their text twice (the cards, and the memo's
    /// encoded copy), and a fixed part per card for IDs, times, counts and the structure.
    static func cost(of cards: [Card]) -> Int {
        cards.reduce(256) { total, card in
            total + 640 + 2 * (card.content.utf8.count + card.author.nickname.utf8.count + card.tags.reduce(0) { $0 + $1.utf8.count + 8 })
        }
    }
}
