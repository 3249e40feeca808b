import Foundation

/// Which cards one page of the following, an author's or the popular feed holds, as read
/// (`CardRepository.positions`: the page and the card after it), kept in `FeedPageCache` for the
/// page lifetime; `ReadFeed.pageFromCards` makes the page from them and kept cards.
///
/// `viewer` is the reader whose following feed they are (nil for the feeds that hold the same cards
/// for everyone): their follows and blocks invalidate them, on every instance.
struct KeptPositions: Sendable {
    let positions: [FeedPosition]
    let viewer: UUID?
}
