/// Where the shared part of a reader's page was kept, so that outer layers can reuse what they
/// derive from it (its encoded form, say) instead of redoing it for every reader.
public enum SharedMemos: Sendable, Equatable {
    /// The memo of each card's kept card or nearby chunk entry, in the page's order. A reader's
    /// page mixes kept things, and a nearby page's distances are the reader's own, so what is kept
    /// per card must leave the distance out.
    case cards([any SharedMemo])

    /// The same memos: the same kept cards or entries.
    public static func == (lhs: SharedMemos, rhs: SharedMemos) -> Bool {
        switch (lhs, rhs) {
        case (.cards(let left), .cards(let right)): left.count == right.count && zip(left, right).allSatisfy { $0 === $1 }
        }
    }
}
