import Foundation

/// What the card use cases work with.
public struct CardEnvironment: Sendable {
    /// The repository, wrapped in what its writes invalidate (`InvalidatingCardRepository`).
    public let cards: any CardRepository
    /// When reports hide a card and restrict its author.
    public let moderation: ModerationPolicy
    /// What `ReadFeed` may make pages from. Off (lifetime 0) unless given.
    public let feedPages: FeedPageCache
    /// Viewers' books of likes that complete those pages. Off (lifetime 0) unless given.
    public let viewerMarks: ViewerMarkCache
    /// Reads kept cards again ahead of their expiry, many readers' in one read.
    public let keptCardRefresher: KeptCardRefresher
    /// The operators' switches; new cards' tags are checked against their refused words.
    public let switches: OperatorSwitches
    /// Where card views are noted (`ViewFlushJob` writes them).
    public let views: ViewLog
    public let now: @Sendable () -> Date

    public init(
        cards: any CardRepository, moderation: ModerationPolicy = .default, feedPages: FeedPageCache = FeedPageCache(lifetime: 0),
        viewerMarks: ViewerMarkCache = ViewerMarkCache(lifetime: 0), switches: OperatorSwitches = OperatorSwitches(),
        views: ViewLog = ViewLog(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        let cards = InvalidatingCardRepository(base: cards, feedPages: feedPages, viewerMarks: viewerMarks)
        self.cards = cards
        self.moderation = moderation
        self.feedPages = feedPages
        self.viewerMarks = viewerMarks
        self.keptCardRefresher = KeptCardRefresher(cards: cards, cache: feedPages, now: now)
        self.switches = switches
        self.views = views
        self.now = now
    }

    /// The time new cards are stamped with: whole milliseconds, as the contract shows times (see `Date.stamp`).
    var stamp: Date { self.now().stamp }
}
