import Foundation

/// A card or comment card as a viewer sees it (the contract's `Card`). What the card is stays as
/// read; what varies by reader or page (the viewer's flags and ballot, a newer like count, the
/// distance, the pin) is set through `Card+Viewer.swift`.
public struct Card: Sendable, Equatable {
    public let id: UUID
    public let content: String
    public let font: CardFont
    public let background: ImageReference
    public let tags: [String]
    public let author: UserSummary
    public let parentID: UUID?
    /// The card this one answers no longer exists (deleted or expired).
    public let parentDeleted: Bool
    public let createdAt: Date
    /// Stories only.
    public let expiresAt: Date?
    public internal(set) var likeCount: Int
    public let commentCount: Int
    /// Distinct accounts other than the author that opened the card (may lag a few seconds: `ViewLog`).
    public let viewCount: Int
    public internal(set) var likedByMe: Bool
    /// The viewer wrote a live comment card on this card.
    public internal(set) var commentedByMe: Bool
    public internal(set) var isMine: Bool
    /// Filled only by the nearby feed.
    public internal(set) var distanceMeters: Double?
    /// Top-level cards with a poll only.
    public internal(set) var poll: Poll?
    /// An operator card leading the first page of the latest feed.
    public internal(set) var pinned: Bool

    public init(
        id: UUID, content: String, font: CardFont, background: ImageReference, tags: [String], author: UserSummary, parentID: UUID?,
        parentDeleted: Bool, createdAt: Date, expiresAt: Date?, likeCount: Int, commentCount: Int, viewCount: Int = 0, likedByMe: Bool,
        commentedByMe: Bool = false, isMine: Bool,
        distanceMeters: Double?, poll: Poll? = nil, pinned: Bool = false
    ) {
        self.id = id
        self.content = content
        self.font = font
        self.background = background
        self.tags = tags
        self.author = author
        self.parentID = parentID
        self.parentDeleted = parentDeleted
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.likeCount = likeCount
        self.commentCount = commentCount
        self.viewCount = viewCount
        self.likedByMe = likedByMe
        self.commentedByMe = commentedByMe
        self.isMine = isMine
        self.distanceMeters = distanceMeters
        self.poll = poll
        self.pinned = pinned
    }
}

/// Another account as lists show it (the contract's `UserSummary`).
public struct UserSummary: Sendable, Equatable {
    public let id: UUID
    public let nickname: String
    public let profileImage: ImageReference?
    /// The built-in operator account, which posts operator cards (`soom admin card post`).
    public let isOperator: Bool

    public init(id: UUID, nickname: String, profileImage: ImageReference?, isOperator: Bool = false) {
        self.id = id
        self.nickname = nickname
        self.profileImage = profileImage
        self.isOperator = isOperator
    }
}
