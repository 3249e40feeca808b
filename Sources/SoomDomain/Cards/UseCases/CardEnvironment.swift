import Foundation

/// What the card use cases work with.
public struct CardEnvironment: Sendable {
    public let cards: any CardRepository
    /// When reports hide a card and restrict its author.
    public let moderation: ModerationPolicy
    /// Shared feed pages `ReadFeed` may answer from memory; the use cases that change cards
    /// invalidate it. Off (lifetime 0) unless given.
    public let feedPages: FeedPageCache
    /// Viewers' marks on shared cards `ReadFeed` may complete pages from; the use cases that change
    /// a viewer's marks (a like, a report) invalidate it. Off (lifetime 0) unless given.
    public let viewerMarks: ViewerMarkCache
    /// Reads kept cards again ahead of their expiry, many readers' in one read.
    public let keptCardRefresher: KeptCardRefresher
    public let now: @Sendable () -> Date

    public init(
        cards: any CardRepository, moderation: ModerationPolicy = .default, feedPages: FeedPageCache = FeedPageCache(lifetime: 0),
        viewerMarks: ViewerMarkCache = ViewerMarkCache(lifetime: 0), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.cards = cards
        self.moderation = moderation
        self.feedPages = feedPages
        self.viewerMarks = viewerMarks
        self.keptCardRefresher = KeptCardRefresher(cards: cards, cache: feedPages, now: now)
        self.now = now
    }

    /// The time new cards are stamped with: whole milliseconds, as the contract shows times (see `Date.stamp`).
    var stamp: Date { self.now().stamp }
}
