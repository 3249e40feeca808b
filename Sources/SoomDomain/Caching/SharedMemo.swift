/// Where an outer layer keeps work it derives from one kept card or nearby chunk entry (its
/// encoded form, say), kept with it in `FeedPageCache` so that it is done once rather than once
/// per reader. The domain never looks inside: SoomHTTP's memo holds the encoded JSON.
///
/// What is kept must depend only on the shared part, never on one reader's flags.
public protocol SharedMemo: AnyObject, Sendable {}

/// Makes the memos `FeedPageCache` keeps: one per kept card, one per entry of a kept nearby
/// chunk. A kept card or entry gets a fresh one, so what is derived from it lives and dies with it.
public struct SharedMemoMaker: Sendable {
    let card: @Sendable () -> (any SharedMemo)?

    public init(card: @escaping @Sendable () -> (any SharedMemo)?) {
        self.card = card
    }

    /// No memos: readers of kept cards derive everything themselves.
    public static let none = SharedMemoMaker(card: { nil })
}
