import Foundation

/// The lists of cards a client can page through.
public enum Feed: Sendable, Equatable {
    /// Every top-level card, newest first.
    case latest
    /// Top-level cards of the last seven days by score `5 × likes + 3 × comment cards`, at most 200.
    case popular
    /// Top-level cards whose cell centre is within the radius, newest first, with their distance
    /// band (`DistanceBand`).
    case nearby(GeoLocation, NearbyRadius)
    /// An account's top-level cards, newest first.
    case author(UUID)
    /// A card's comment cards, newest first.
    case comments(parent: UUID)
    /// The comment cards an account wrote, newest first (`GET /v1/me/comments`: the caller's own).
    case commentsBy(UUID)
    /// Live cards carrying the tag (top-level and comment cards), newest first.
    case tag(Tag)
    /// Top-level cards of the accounts the viewer follows, newest first.
    case following

    /// Cards the popular feed ranks at most.
    public static let popularSize = 200

    /// Names the feed and its parameters; a cursor is valid only for the feed it came from.
    var scope: String {
        switch self {
        case .latest: "latest"
        case .popular: "popular"
        // The query point's cell, not the point: a cursor never carries a coordinate.
        case .nearby(let location, let radius): "nearby:\(GeoCell(containing: location).key):\(radius.rawValue)"
        case .author(let id): "author:\(id.uuidString.lowercased())"
        case .comments(let parent): "comments:\(parent.uuidString.lowercased())"
        case .commentsBy(let author): "comments-by:\(author.uuidString.lowercased())"
        case .tag(let tag): "tag:\(tag.key)"
        case .following: "following"
        }
    }
}

/// Where a page ended: the keyset of its last card.
public struct FeedPosition: Sendable, Equatable {
    /// Creation time in microseconds since 1970, exactly as stored (no floating-point rounding).
    public let createdAtMicros: Int64
    public let id: UUID
    /// Popular feed only: the ranking generation and the rank within it.
    public let ranking: Ranking?

    public struct Ranking: Sendable, Equatable {
        public let generation: Int64
        public let rank: Int

        public init(generation: Int64, rank: Int) {
            self.generation = generation
            self.rank = rank
        }
    }

    public init(createdAtMicros: Int64, id: UUID, ranking: Ranking? = nil) {
        self.createdAtMicros = createdAtMicros
        self.id = id
        self.ranking = ranking
    }
}

/// A page of cards and where the next one starts (nil at the end).
public struct FeedPage: Sendable, Equatable {
    public let cards: [Card]
    public let next: FeedPosition?
    /// Set on a page kept by `FeedPageCache` and on the readers' pages made from kept pages or
    /// nearby chunks; not part of the page's value.
    public let shared: SharedMemos?
    /// When the read of this shared page began — of the oldest chunk, for a nearby page made of
    /// chunks — so that a reader's kept marks can tell whether it counts their like
    /// (`ViewerMarkCache`). Set on kept pages and on pages made from them; not part of the value.
    public let readAt: Date?

    public init(cards: [Card], next: FeedPosition?, shared: SharedMemos? = nil, readAt: Date? = nil) {
        self.cards = cards
        self.next = next
        self.shared = shared
        self.readAt = readAt
    }

    public static func == (lhs: FeedPage, rhs: FeedPage) -> Bool {
        lhs.cards == rhs.cards && lhs.next == rhs.next
    }
}
