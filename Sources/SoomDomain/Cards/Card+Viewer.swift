import Foundation

extension Card {
    /// The card with the viewer's flags and ballot set (and, when given, a newer like count).
    public func seen(by viewer: UUID, liked: Bool, likeCount: Int? = nil, commented: Bool = false, ballot: Ballot = .none) -> Card {
        var card = self
        card.likeCount = likeCount ?? self.likeCount
        card.likedByMe = liked
        card.commentedByMe = commented
        card.isMine = self.author.id == viewer
        card.poll = self.poll?.seen(with: ballot)
        return card
    }

    /// The card as it leads the latest feed's first page (`pinned`).
    public func pinnedAtTop() -> Card {
        var card = self
        card.pinned = true
        return card
    }

    /// The card with its distance rounded up to its band (`DistanceBand`), as the nearby feed shows it.
    public func banded() -> Card {
        var card = self
        card.distanceMeters = self.distanceMeters.map { Double(DistanceBand.metres($0)) }
        return card
    }

    /// The card with its exact distance from a nearby query's point.
    public func measured(_ metres: Double) -> Card {
        var card = self
        card.distanceMeters = metres
        return card
    }
}
