/// Where an outer layer keeps work it derives from one kept shared page or nearby chunk entry (its
/// encoded form, say), kept with it in `FeedPageCache` so that it is done once rather than once
/// per reader. The domain never looks inside: SoomHTTP's memo holds the encoded JSON.
///
/// What is kept must depend only on the shared part, never on one reader's flags.
public protocol SharedMemo: AnyObject, Sendable {}

/// Makes the memos `FeedPageCache` keeps: one per kept page, one per card of a kept nearby chunk.
/// A kept page or chunk gets fresh ones, so what is derived from it lives and dies with it.
public struct SharedMemoMaker: Sendable {
    let page: @Sendable () -> (any SharedMemo)?
    let card: @Sendable () -> (any SharedMemo)?

    public init(page: @escaping @Sendable () -> (any SharedMemo)?, card: @escaping @Sendable () -> (any SharedMemo)?) {
        self.page = page
        self.card = card
    }

    /// No memos: readers of kept pages derive everything themselves.
    public static let none = SharedMemoMaker(page: { nil }, card: { nil })
}
