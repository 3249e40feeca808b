import Foundation

/// Where one feed's pages come from: `CardRepository.source(for:)` gives the feed's. SoomData has
/// one type per way a page is found (`SoomData/Feeds`), each owning its SQL.
///
/// Every source reads a page exactly as one viewer sees it. What else it can read tells `ReadFeed`
/// how its pages may be answered from memory (`FeedPageCache`): pages made from kept cards
/// (`PositionSource`), or nearby pages made from kept chunks (`ChunkSource`). A source that is
/// neither is read for each viewer.
public protocol FeedSource: Sendable {
    /// One page as `viewer` sees it, after `position` (nil: the first page), at most `limit`
    /// cards; nil when the feed's subject (a parent card, an author) does not exist for the viewer.
    /// One read (a second only to tell an empty list from a missing subject).
    func page(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage?
}

/// A feed whose pages are made from kept cards (the latest feed, a tag's, the following feed, an
/// author's, popular): which cards a page holds is read apart, cheaply, and kept.
public protocol PositionSource: FeedSource {
    /// Whether a page holds the same cards for every viewer; the following feed's are the viewer's own.
    var positionsAreShared: Bool { get }
    /// The positions of the page's live cards after `position`, in the feed's order, at most
    /// `limit + 1` (the last says whether another page follows), without the viewer's blocks and
    /// reports (their marks say). One read.
    func positions(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> [FeedPosition]
}

/// The nearby feed: pages made in memory from the shared chunks of the cover's index prefixes.
public protocol ChunkSource: FeedSource {
    var location: GeoLocation { get }
    var radius: NearbyRadius { get }
    /// The chunks for `keys` (all of one prefix length, in `NearbyChunk.indexedPrecisions`), in the
    /// same order, in one read: for each, the newest live top-level located cards of the prefix
    /// below its position, at most its size, as everyone sees them.
    func chunks(_ keys: [NearbyChunk.Key]) async throws -> [NearbyChunk]
}
