import Foundation

/// A page of any keyset list (people, blocks, notifications) and where the next one starts
/// (nil on the last page). Positions are `(time, id)` newest first, like the feeds'.
public struct ListPage<Item: Sendable & Equatable>: Sendable, Equatable {
    public let items: [Item]
    public let next: FeedPosition?

    public init(items: [Item], next: FeedPosition?) {
        self.items = items
        self.next = next
    }

    /// A page from `limit + 1` newest-first rows: the extra row only says that another page follows.
    public init(rows: [(item: Item, position: FeedPosition)], limit: Int) {
        let page = rows.prefix(limit)
        self.items = page.map(\.item)
        self.next = rows.count > limit ? page.last?.position : nil
    }
}
