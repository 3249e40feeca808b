import Foundation

extension Card {
    /// The card with the viewer's flags and ballot set (and, when given, a newer like count).
    public func seen(by viewer: UUID, liked: Bool, likeCount: Int? = nil, commented: Bool = false, ballot: Ballot = .none) -> Card {
        Card(
            id: self.id, content: self.content, font: self.font, background: self.background, tags: self.tags, author: self.author,
            parentID: self.parentID, parentDeleted: self.parentDeleted, createdAt: self.createdAt, expiresAt: self.expiresAt,
            likeCount: likeCount ?? self.likeCount, commentCount: self.commentCount, viewCount: self.viewCount, likedByMe: liked,
            commentedByMe: commented,
            isMine: self.author.id == viewer,
            distanceMeters: self.distanceMeters, poll: self.poll?.seen(with: ballot), pinned: self.pinned)
    }

    /// The card as it leads the latest feed's first page (`pinned`).
    public func pinnedAtTop() -> Card {
        Card(
            id: self.id, content: self.content, font: self.font, background: self.background, tags: self.tags, author: self.author,
            parentID: self.parentID, parentDeleted: self.parentDeleted, createdAt: self.createdAt, expiresAt: self.expiresAt,
            likeCount: self.likeCount, commentCount: self.commentCount, viewCount: self.viewCount, likedByMe: self.likedByMe,
            commentedByMe: self.commentedByMe, isMine: self.isMine, distanceMeters: self.distanceMeters, poll: self.poll, pinned: true)
    }

    /// The card with its distance rounded up to its band (`DistanceBand`), as the nearby feed shows it.
    public func banded() -> Card {
        Card(
            id: self.id, content: self.content, font: self.font, background: self.background, tags: self.tags, author: self.author,
            parentID: self.parentID, parentDeleted: self.parentDeleted, createdAt: self.createdAt, expiresAt: self.expiresAt,
            likeCount: self.likeCount, commentCount: self.commentCount, viewCount: self.viewCount, likedByMe: self.likedByMe,
            commentedByMe: self.commentedByMe, isMine: self.isMine,
            distanceMeters: self.distanceMeters.map { Double(DistanceBand.metres($0)) }, poll: self.poll, pinned: self.pinned)
    }

    /// The card with its exact distance from a nearby query's point.
    public func measured(_ metres: Double) -> Card {
        Card(
            id: self.id, content: self.content, font: self.font, background: self.background, tags: self.tags, author: self.author,
            parentID: self.parentID, parentDeleted: self.parentDeleted, createdAt: self.createdAt, expiresAt: self.expiresAt,
            likeCount: self.likeCount, commentCount: self.commentCount, viewCount: self.viewCount, likedByMe: self.likedByMe,
            commentedByMe: self.commentedByMe, isMine: self.isMine,
            distanceMeters: metres, poll: self.poll, pinned: self.pinned)
    }
}
