import Foundation

/// What makes a shared feed page (see `FeedPageCache`) one viewer's page.
public struct ViewerMarks: Sendable, Equatable {
    /// The page's cards the viewer liked.
    public let liked: Set<UUID>
    /// The viewer and an author on the page blocked one another: the page must be read for the viewer.
    public let blocked: Bool

    public init(liked: Set<UUID>, blocked: Bool) {
        self.liked = liked
        self.blocked = blocked
    }
}

extension FeedPage {
    /// The shared page as `viewer` sees it, when no author on it is blocked either way.
    public func seen(by viewer: UUID, marks: ViewerMarks) -> FeedPage {
        FeedPage(cards: self.cards.map { $0.seen(by: viewer, liked: marks.liked.contains($0.id)) }, next: self.next, memo: self.memo)
    }
}
