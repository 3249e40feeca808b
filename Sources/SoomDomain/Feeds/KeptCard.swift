import Foundation

/// One card as everyone sees it (`likedByMe` and `isMine` false), kept by `FeedPageCache` for
/// card details and the following feed, whose pages are each one viewer's but whose cards are
/// everyone's. A class: a page hands the same kept card through several lists, and a reference
/// is one count to copy where the card's members are many.
public final class KeptCard: Sendable {
    public let card: Card
    /// What outer layers derive from the card (`SharedMemos.cards`); nil when it was read and not kept.
    public let memo: (any SharedMemo)?
    /// When its read began (`FeedPage.readAt`).
    public let readAt: Date

    public init(card: Card, memo: (any SharedMemo)?, readAt: Date) {
        self.card = card
        self.memo = memo
        self.readAt = readAt
    }
}
