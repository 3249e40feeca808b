import Foundation

/// Each viewer's book of likes, answers and ballots: every card they liked, with its like count as
/// read, every card they answered with a live comment card (until when), and their ballot on every
/// poll they voted in, so that a page
/// made from kept cards or chunks (`ReadFeed`) is completed without a database read — for any
/// card, a new one included, not only for cards shown to the viewer before.
///
/// The contract: a viewer's marks are never served older than a change to them, beyond a
/// notification's delay (milliseconds) on another instance, as `SessionCache`'s sessions:
/// - A book holds all of a viewer's likes and answered cards, or none: a viewer with more than
///   `likesPerViewer` of either has their marks read for every page (`CardRepository.viewerMarks`), and so has a viewer with
///   any block either way or report at all, whose pages may have to be read exactly. That a viewer
///   is such a *guarded* one is kept, so that their pages skip the book's read.
/// - Every change to a viewer's marks (a like or unlike, a block either way made or undone, a
///   report made or purged, a comment card of theirs posted, deleted, hidden or shown, a ballot
///   cast, changed or withdrawn) notifies `channel` with the account's id from the database
///   (triggers of migrations 0014, 0023 and 0024), and the instance's listener calls `invalidate(viewer:)`; the instance
///   that made the change calls it itself before answering. `*` (a bulk change, a `TRUNCATE`)
///   calls `invalidateAll()`.
/// - It works only while that listener is connected (`resume()`/`suspend()`), and a read that
///   began before an invalidation of its viewer is not kept (`ticket()`).
/// - A book lives at most `lifetime` after its read began.
///
/// Like counts are the page's, which may be older than the viewer's own like: a liked card shows
/// the page's count when the page's read (`FeedPage.readAt`) began after the book's read ended, so
/// that it counts the like; otherwise the count read with the book, as a fresh read would. A page
/// without `readAt` is not completed from here.
///
/// The mechanism (tickets, listening, memory bounds) is `InvalidatedCache`'s: books by viewer,
/// tagged with the viewer.
public final class ViewerMarkCache: Sendable {
    /// The PostgreSQL notification channel the triggers of migration 0014 notify.
    public static let channel = "soom_marks_changed"
    /// Likes a book holds at most; a viewer with more is read every time.
    public static let defaultLikesPerViewer = 1024
    /// Viewers kept at most by default.
    public static let defaultCapacity = 50_000
    /// Bytes kept books may take by default (see `cost(of:)`).
    public static let defaultByteBudget = 32 << 20

    /// Proof of what had been invalidated when a read began; see `store`.
    public typealias Ticket = InvalidatedCache<UUID, Book, UUID>.Ticket

    /// One viewer's kept book.
    public struct Book: Sendable {
        let viewer: UUID
        /// Every card the viewer liked, with its like count as read; nil for a guarded viewer (a
        /// block or a report, or more likes than a book holds).
        let liked: [UUID: Int]?
        /// Every card the viewer answered with a live comment card, until when (empty when guarded).
        let commented: [UUID: Date]
        /// The viewer's ballot on every poll they voted in (empty when guarded).
        let ballots: [UUID: Ballot]
        /// When the book's read had ended.
        let seenAt: Date
    }

    /// What the cache knows of a viewer's marks on a page.
    public enum Lookup: Sendable, Equatable {
        case marks(ViewerMarks)
        /// The viewer has a block or a report, or more likes than a book holds: read their marks on the page.
        case guarded
        /// Nothing kept (or the page does not say when it was read).
        case unknown
    }

    public let likesPerViewer: Int
    private let books: InvalidatedCache<UUID, Book, UUID>

    /// - Parameters:
    ///   - lifetime: the longest a book is served after its read began, in seconds; 0 disables the cache.
    public init(
        lifetime: TimeInterval, capacity: Int = ViewerMarkCache.defaultCapacity,
        byteBudget: Int = ViewerMarkCache.defaultByteBudget, likesPerViewer: Int = ViewerMarkCache.defaultLikesPerViewer
    ) {
        self.likesPerViewer = max(likesPerViewer, 1)
        self.books = InvalidatedCache(lifetime: lifetime, capacity: capacity, byteBudget: byteBudget, listening: false, tags: { [$0.viewer] })
    }

    public var lifetime: TimeInterval { self.books.lifetime }

    /// Whether books are kept and served: a positive lifetime and a connected listener.
    public var isActive: Bool { self.books.isActive }

    /// The number of viewers kept, and their books' estimated bytes (for tests and metrics).
    public var count: Int { self.books.count }
    public var bytes: Int { self.books.bytes }

    /// `viewer`'s marks on a page's cards, from their kept book.
    public func marks(of viewer: UUID, on page: FeedPage, at now: Date) -> Lookup {
        guard let book = self.books.value(viewer, at: now) else { return .unknown }
        guard let liked = book.liked else { return .guarded }
        return Self.marks(on: page, from: liked, commented: book.commented, ballots: book.ballots, bookSeenAt: book.seenAt).map(Lookup.marks)
            ?? .unknown
    }

    /// The marks on `page` of a viewer with the book `liked` (read until `bookSeenAt`), as the
    /// type's description says; nil when the page does not say when it was read.
    public static func marks(
        on page: FeedPage, from liked: [UUID: Int], commented: [UUID: Date], ballots: [UUID: Ballot], bookSeenAt: Date
    ) -> ViewerMarks? {
        guard let pageReadAt = page.readAt else { return nil }
        var marks: [UUID: Int] = [:]
        var answered: [UUID: Date] = [:]
        var cast: [UUID: Ballot] = [:]
        for card in page.cards {
            if let count = liked[card.id] { marks[card.id] = pageReadAt > bookSeenAt ? card.likeCount : count }
            if let until = commented[card.id] { answered[card.id] = until }
            if card.poll != nil, let ballot = ballots[card.id] { cast[card.id] = ballot }
        }
        return ViewerMarks(liked: marks, commented: answered, ballots: cast, blocked: false, guarded: false)
    }

    /// Taken before reading a viewer's book from the database, for `store`.
    public func ticket() -> Ticket { self.books.ticket() }

    /// Keeps `book` (`CardRepository.likeBook`; nil: more likes than a book holds), read from
    /// `readAt` until `seenAt`, unless the viewer was invalidated since `ticket` was taken or the
    /// listener is not connected. A guarded book, or nil, is kept as a guarded viewer.
    public func store(_ book: ViewerMarks?, of viewer: UUID, readAt: Date, seenAt: Date, ticket: Ticket) {
        let open = book.flatMap { $0.guarded ? nil : $0 }
        let kept = Book(viewer: viewer, liked: open?.liked, commented: open?.commented ?? [:], ballots: open?.ballots ?? [:], seenAt: seenAt)
        let marks = (kept.liked?.count ?? 0) + kept.commented.count + kept.ballots.count
        self.books.store(kept, for: viewer, readAt: readAt, cost: Self.cost(of: marks), ticket: ticket)
    }

    /// Estimated bytes of a book of `marks` likes and answered cards: a dictionary entry (key and
    /// count or time) with the table's slack, and the book itself.
    static func cost(of marks: Int) -> Int { 64 + marks * 48 }

    /// Forgets `viewer`'s book: they liked, unliked, answered, voted, blocked, were blocked or reported.
    public func invalidate(viewer: UUID) {
        self.books.invalidate(.tag(viewer))
    }

    /// Forgets every viewer's book but keeps working: a change that named no account (`*`).
    public func invalidateAll() { self.books.invalidateAll() }

    /// The listener is connected (again): from now on every change is heard, so books may be kept.
    public func resume() { self.books.resume() }

    /// The listener lost its connection: forget everything and keep nothing until `resume()`.
    public func suspend() { self.books.suspend() }
}
