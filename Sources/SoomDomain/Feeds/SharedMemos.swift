/// Where the shared part of a reader's page was kept, so that outer layers can reuse what they
/// derive from it (its encoded form, say) instead of redoing it for every reader.
public enum SharedMemos: Sendable, Equatable {
    /// The page is a kept shared page (`FeedPageCache`, the latest and tag feeds): one memo for
    /// all its cards, in order.
    case page(SharedPageMemo)
    /// The cards come from kept nearby chunks (`NearbyChunk`): the memo of each card's chunk entry,
    /// in the page's order. A reader's page mixes the entries of several chunks, and its distances
    /// are the reader's own, so what is kept per card must leave the distance out.
    case cards([SharedPageMemo])
}
