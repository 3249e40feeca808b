import Foundation

/// The contract's `Profile`: an account as another account (the viewer) sees it.
public struct Profile: Sendable, Equatable {
    public let user: UserSummary
    public let bio: String
    /// Live top-level cards.
    public let cardCount: Int
    public let followerCount: Int
    public let followingCount: Int
    /// The viewer follows this account.
    public let isFollowing: Bool
    /// This account follows the viewer.
    public let isFollowedBy: Bool
    /// The viewer blocked this account.
    public let isBlocked: Bool
    /// This is the viewer's own account.
    public let isMe: Bool
    /// Distinct accounts other than the owner that opened the profile, ever and today (UTC); may
    /// lag a few seconds (`ViewLog`).
    public let visitCount: Int
    public let visitsToday: Int

    public init(
        user: UserSummary, bio: String, cardCount: Int, followerCount: Int, followingCount: Int,
        isFollowing: Bool, isFollowedBy: Bool, isBlocked: Bool, isMe: Bool, visitCount: Int = 0, visitsToday: Int = 0
    ) {
        self.user = user
        self.bio = bio
        self.cardCount = cardCount
        self.followerCount = followerCount
        self.followingCount = followingCount
        self.isFollowing = isFollowing
        self.isFollowedBy = isFollowedBy
        self.isBlocked = isBlocked
        self.isMe = isMe
        self.visitCount = visitCount
        self.visitsToday = visitsToday
    }
}
