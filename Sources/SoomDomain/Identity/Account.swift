import Foundation

/// An account as its owner sees it (the contract's `Me`).
public struct Account: Sendable, Equatable {
    /// Random, opaque; says nothing about the account.
    public let id: UUID
    public var nickname: String
    public var profileImage: ImageReference?
    public var bio: String
    public let createdAt: Date
    public var cardCount: Int
    public var followerCount: Int
    public var followingCount: Int
    /// Until when posting is refused; nil when not restricted.
    public var restrictedUntil: Date?

    public init(
        id: UUID, nickname: String, profileImage: ImageReference?, bio: String, createdAt: Date,
        cardCount: Int = 0, followerCount: Int = 0, followingCount: Int = 0, restrictedUntil: Date? = nil
    ) {
        self.id = id
        self.nickname = nickname
        self.profileImage = profileImage
        self.bio = bio
        self.createdAt = createdAt
        self.cardCount = cardCount
        self.followerCount = followerCount
        self.followingCount = followingCount
        self.restrictedUntil = restrictedUntil
    }
}

extension Account {
    /// The account as others see it beside its cards: `UserSummary`.
    public var summary: UserSummary {
        UserSummary(id: self.id, nickname: self.nickname, profileImage: self.profileImage)
    }
}
