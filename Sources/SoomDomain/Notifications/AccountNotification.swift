import Foundation

/// The contract's `Notification`: something that happened to the recipient's account or cards.
/// (Named so as not to clash with Foundation's `Notification`.)
public struct AccountNotification: Sendable, Equatable {
    public let id: UUID
    public let type: NotificationType
    public let createdAt: Date
    public let read: Bool
    /// Who did it; nil for what the service did (hiding, restricting) and for likes, which are
    /// private: a `card_liked` notification says that someone liked the card, not who.
    public let actor: UserSummary?
    /// The recipient's card (liked, answered, hidden), the card whose poll closed, or the new card
    /// carrying a favourite tag.
    public let cardID: UUID?
    /// The favourite tag's name, for `favorite_tag_used`.
    public let tag: String?
    /// The end of a posting restriction, for `posting_restricted`.
    public let until: Date?

    public init(
        id: UUID, type: NotificationType, createdAt: Date, read: Bool, actor: UserSummary?, cardID: UUID?, tag: String?, until: Date?
    ) {
        self.id = id
        self.type = type
        self.createdAt = createdAt
        self.read = read
        self.actor = actor
        self.cardID = cardID
        self.tag = tag
        self.until = until
    }
}

/// The eight kinds of notification. Nobody is notified of their own actions, nor across a block.
public enum NotificationType: String, Sendable, Equatable, CaseIterable {
    /// Someone liked the recipient's card (who is never shown); at most one unread per liker and
    /// card, and an unread one goes away when its like is withdrawn.
    case cardLiked = "card_liked"
    /// The actor answered the recipient's card with a comment card; at most one unread per actor and card.
    case cardCommented = "card_commented"
    /// The actor started following the recipient; at most one unread per actor.
    case followed
    /// The actor posted a card carrying a tag among the recipient's favourites; at most one unread
    /// per recipient and tag (the first such card since the recipient last read it).
    case favoriteTagUsed = "favorite_tag_used"
    /// Someone the recipient follows (the actor) posted a top-level card; at most one unread per
    /// recipient and actor (the first such card since the recipient last read one).
    case followingPosted = "following_posted"
    /// A poll the recipient voted in or posted closed (`cardID` nil when it closed with its story,
    /// which is gone).
    case pollClosed = "poll_closed"
    /// The recipient's card was hidden after reports.
    case cardHidden = "card_hidden"
    /// The recipient may not post until `until`.
    case postingRestricted = "posting_restricted"
}
