import Foundation
import PostgresNIO
import SoomDomain

/// A tag's feed: live cards carrying the tag (top-level and comment cards), newest first, through
/// `card_tags_feed_idx`. Which cards a page holds is the same for everyone, so pages are made from
/// kept cards (`PositionSource`). Migration 0017 has PostgreSQL cost the generic plan for the most
/// used tag.
struct TagFeed: PositionSource {
    let database: Database
    let tag: Tag

    var positionsAreShared: Bool { true }

    func page(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        let rows = try await self.database.rows(Page(viewer: viewer, key: self.tag.key, position: position, rows: limit + 1))
        return FeedPage(rows: rows, limit: limit)
    }

    func positions(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> [FeedPosition] {
        try await self.database.rows(Positions(key: self.tag.key, position: position, rows: limit + 1))
    }

    /// A page as the viewer sees it.
    struct Page: PageStatement, CardRowStatement {
        static let sql: String = {
            var parameters = Parameters()
            let (viewer, key) = (parameters.next(), parameters.next())
            return KeysetPageSQL.cards(
                viewer: viewer, from: "FROM card_tags t JOIN cards c ON c.id = t.card_id", scope: "t.tag_key = \(key)",
                keys: ("t.created_at", "t.card_id"), parameters: &parameters)
        }()

        let viewer: UUID
        let key: String
        let position: FeedPosition?
        let rows: Int

        func bindSubject(to bindings: inout PostgresBindings) {
            bindings.append(self.viewer)
            bindings.append(self.key)
        }
    }

    /// The positions of a page's live cards, the same for everyone.
    struct Positions: PageStatement, PositionRowStatement {
        static let sql: String = {
            var parameters = Parameters()
            let key = parameters.next()
            return KeysetPageSQL.text(
                columns: "t.card_id, (extract(epoch FROM t.created_at) * 1000000)::int8", from: "FROM card_tags t JOIN cards c ON c.id = t.card_id",
                scope: "t.tag_key = \(key) AND \(CardRow.live)", keys: ("t.created_at", "t.card_id"), parameters: &parameters)
        }()

        let key: String
        let position: FeedPosition?
        let rows: Int

        func bindSubject(to bindings: inout PostgresBindings) { bindings.append(self.key) }
    }
}
