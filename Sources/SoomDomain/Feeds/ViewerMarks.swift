import Foundation

/// What makes a shared feed page (see `FeedPageCache`) one viewer's page.
public struct ViewerMarks: Sendable, Equatable {
    /// The page's cards the viewer liked, with their like counts as read with the marks: a reader
    /// who just liked a card through another instance sees their like counted.
    public let liked: [UUID: Int]
    /// The cards the viewer answered with a live comment card, each with when that stops being so
    /// (its latest story's end; `Date.distantFuture` when one is not a story).
    public let commented: [UUID: Date]
    /// The viewer's ballots on the polls among the cards (`myVotes`).
    public let ballots: [UUID: Ballot]
    /// The viewer and an author on the page blocked one another, or the viewer reported a card on
    /// it: the page must be read for the viewer.
    public let blocked: Bool
    /// The viewer has a block (either way) or a report at all, so these marks say nothing about
    /// other cards or authors, and `ViewerMarkCache` does not keep them. Marks whose reader did not
    /// ask are guarded.
    public let guarded: Bool

    public init(liked: [UUID: Int], commented: [UUID: Date] = [:], ballots: [UUID: Ballot] = [:], blocked: Bool, guarded: Bool = true) {
        self.liked = liked
        self.commented = commented
        self.ballots = ballots
        self.blocked = blocked
        self.guarded = guarded
    }

    /// A viewer's marks on no cards at all.
    public static let none = ViewerMarks(liked: [:], blocked: false)
}

extension FeedPage {
    /// The shared page as `viewer` sees it at `now`, when no author on it is blocked either way.
    public func seen(by viewer: UUID, marks: ViewerMarks, at now: Date) -> FeedPage {
        FeedPage(
            cards: self.cards.map { card in
                let likeCount = marks.liked[card.id]
                let commented = marks.commented[card.id].map { $0 > now } ?? false
                return card.seen(
                    by: viewer, liked: likeCount != nil, likeCount: likeCount, commented: commented, ballot: marks.ballots[card.id] ?? .none)
            },
            next: self.next, shared: self.shared)
    }
}
