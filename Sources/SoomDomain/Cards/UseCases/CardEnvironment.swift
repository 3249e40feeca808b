import Foundation

/// What the card use cases work with.
public struct CardEnvironment: Sendable {
    public let cards: any CardRepository
    /// When reports hide a card and restrict its author.
    public let moderation: ModerationPolicy
    public let now: @Sendable () -> Date

    public init(cards: any CardRepository, moderation: ModerationPolicy = .default, now: @escaping @Sendable () -> Date = { Date() }) {
        self.cards = cards
        self.moderation = moderation
        self.now = now
    }

    /// The time new cards are stamped with: whole milliseconds, as the contract shows times.
    var stamp: Date {
        Date(timeIntervalSince1970: (self.now().timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }
}
