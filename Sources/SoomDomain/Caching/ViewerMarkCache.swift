import Foundation

/// Each viewer's marks on the shared cards this instance showed them recently (which they liked),
/// so that a shared page (the latest feed, a tag's feed, nearby) shown to the same viewer again —
/// a refresh, a return to the top, a page another reader's scroll brought back — is completed
/// without a database read (`ReadFeed`; `CardRepository.viewerMarks` otherwise).
///
/// The contract: a viewer's marks are never served older than a change to them, beyond a
/// notification's delay (milliseconds) on another instance, as `SessionCache`'s sessions:
/// - Only marks that hold beyond the cards read are kept: those of a viewer with no block either
///   way and no report at all (`ViewerMarks.guarded` false), for whom `blocked` is false on every
///   page. A viewer with any is read every time, as without the cache.
/// - Every change to a viewer's marks (a like or unlike, a block either way made or undone, a
///   report made or purged) notifies `channel` with the account's id from the database (triggers
///   of migration 0014), and the instance's listener calls `invalidate(viewer:)`; the instance
///   that made the change calls it itself before answering. `*` (a bulk change, a `TRUNCATE`)
///   calls `invalidateAll()`.
/// - It works only while that listener is connected (`resume()`/`suspend()`), and a read that
///   began before an invalidation of its viewer is not kept (`ticket()`).
/// - A mark lives at most `lifetime` after its read ended, even in a book the viewer's later
///   reads keep adding to, and at most `marksPerViewer` marks are kept per viewer.
///
/// Like counts are the shared page's, which may be older than the viewer's own like: a liked card
/// shows the page's count when the page's read (`FeedPage.readAt`, the oldest chunk's for a nearby
/// page) began after the mark's read ended, so that it counts the like; otherwise the count read
/// with the mark, as a fresh read would. A page without `readAt` is not completed from here.
///
/// The mechanism (tickets, listening, memory bounds) is `InvalidatedCache`'s: books by viewer,
/// tagged with the viewer.
public final class ViewerMarkCache: Sendable {
    /// The PostgreSQL notification channel the triggers of migration 0014 notify.
    public static let channel = "soom_marks_changed"
    /// Marks kept at most per viewer; a read that would keep more starts the viewer's book afresh.
    public static let defaultMarksPerViewer = 2048
    /// Viewers kept at most by default.
    public static let defaultCapacity = 50_000
    /// Bytes kept books may take by default (see `cost(of:)`).
    public static let defaultByteBudget = 32 << 20

    /// Proof of what had been invalidated when a read began; see `store`.
    public typealias Ticket = InvalidatedCache<UUID, Book, UUID>.Ticket

    /// One viewer's mark on one card: its like count when they liked it, as read then.
    public struct Mark: Sendable, Equatable {
        /// nil: not liked.
        public let likeCount: Int?
        /// When the read that saw it had ended.
        public let seenAt: Date
    }

    /// One viewer's kept marks, by card.
    public struct Book: Sendable {
        let viewer: UUID
        let marks: [UUID: Mark]
    }

    public let marksPerViewer: Int
    private let books: InvalidatedCache<UUID, Book, UUID>

    /// - Parameters:
    ///   - lifetime: the longest a mark is served after its read ended, in seconds; 0 disables the cache.
    public init(
        lifetime: TimeInterval, capacity: Int = ViewerMarkCache.defaultCapacity,
        byteBudget: Int = ViewerMarkCache.defaultByteBudget, marksPerViewer: Int = ViewerMarkCache.defaultMarksPerViewer
    ) {
        self.marksPerViewer = max(marksPerViewer, 1)
        self.books = InvalidatedCache(lifetime: lifetime, capacity: capacity, byteBudget: byteBudget, listening: false, tags: { [$0.viewer] })
    }

    public var lifetime: TimeInterval { self.books.lifetime }

    /// Whether marks are kept and served: a positive lifetime and a connected listener.
    public var isActive: Bool { self.books.isActive }

    /// The number of viewers kept, and their books' estimated bytes (for tests and metrics).
    public var count: Int { self.books.count }
    public var bytes: Int { self.books.bytes }

    /// `viewer`'s marks on a shared page's cards if every one is kept and servable at `now`; nil
    /// if any is not, or the page does not say when it was read.
    public func marks(of viewer: UUID, on page: FeedPage, at now: Date) -> ViewerMarks? {
        guard !page.cards.isEmpty, let pageReadAt = page.readAt, let book = self.books.value(viewer, at: now) else { return nil }
        var liked: [UUID: Int] = [:]
        for card in page.cards {
            guard let mark = book.marks[card.id], now.timeIntervalSince(mark.seenAt) < self.lifetime else { return nil }
            guard let markCount = mark.likeCount else { continue }
            liked[card.id] = pageReadAt > mark.seenAt ? card.likeCount : markCount
        }
        return ViewerMarks(liked: liked, blocked: false, guarded: false)
    }

    /// Taken before reading a viewer's marks from the database, for `store`.
    public func ticket() -> Ticket { self.books.ticket() }

    /// Adds `marks`, read for `cards` from `readAt` until `seenAt`, to `viewer`'s book, unless they
    /// are guarded, the viewer was invalidated since `ticket` was taken, or the listener is not
    /// connected. Marks older than `lifetime` leave the book; a book that would hold more than
    /// `marksPerViewer` starts afresh with these.
    public func store(_ marks: ViewerMarks, of viewer: UUID, cards: [UUID], readAt: Date, seenAt: Date, ticket: Ticket) {
        guard self.lifetime > 0, !marks.guarded, !marks.blocked, !cards.isEmpty else { return }
        var kept = self.books.value(viewer, at: seenAt)?.marks.filter { seenAt.timeIntervalSince($0.value.seenAt) < self.lifetime } ?? [:]
        if kept.count + cards.count > self.marksPerViewer { kept = [:] }
        for card in cards.prefix(self.marksPerViewer) {
            kept[card] = Mark(likeCount: marks.liked[card], seenAt: seenAt)
        }
        self.books.store(Book(viewer: viewer, marks: kept), for: viewer, readAt: readAt, cost: Self.cost(of: kept.count), ticket: ticket)
    }

    /// Estimated bytes of a book of `marks` marks: a dictionary entry (key, optional count, date)
    /// with the table's slack, and the book itself.
    static func cost(of marks: Int) -> Int { 64 + marks * 64 }

    /// Forgets `viewer`'s marks: they liked, unliked, blocked, were blocked or reported.
    public func invalidate(viewer: UUID) {
        self.books.invalidate(.tag(viewer))
    }

    /// Forgets every viewer's marks but keeps working: a change that named no account (`*`).
    public func invalidateAll() { self.books.invalidateAll() }

    /// The listener is connected (again): from now on every change is heard, so marks may be kept.
    public func resume() { self.books.resume() }

    /// The listener lost its connection: forget everything and keep nothing until `resume()`.
    public func suspend() { self.books.suspend() }
}
