/// Where the shared part of a reader's page was kept, so that outer layers can reuse what they
/// derive from it (its encoded form, say) instead of redoing it for every reader.
public enum SharedMemos: Sendable, Equatable {
    /// The page is a kept shared page (`FeedPageCache`, the latest and tag feeds): one memo for
    /// all its cards, in order.
    case page(any SharedMemo)
    /// The cards come from kept nearby chunks (`NearbyChunk`): the memo of each card's chunk entry,
    /// in the page's order. A reader's page mixes the entries of several chunks, and its distances
    /// are the reader's own, so what is kept per card must leave the distance out.
    case cards([any SharedMemo])

    /// The same memos: the same kept page or entries.
    public static func == (lhs: SharedMemos, rhs: SharedMemos) -> Bool {
        switch (lhs, rhs) {
        case (.page(let left), .page(let right)): left === right
        case (.cards(let left), .cards(let right)): left.count == right.count && zip(left, right).allSatisfy { $0 === $1 }
        case (.page, .cards), (.cards, .page): false
        }
    }
}
