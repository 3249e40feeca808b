import Foundation
import PostgresNIO
import SoomDomain

/// A tag's feed: live cards carrying the tag (top-level and comment cards), newest first, through
/// `card_tags_feed_idx`. Its pages look the same to everyone, so they are kept whole
/// (`SharedPageSource`). Migration 0017 has PostgreSQL cost the generic plan for the most used tag.
struct TagFeed: SharedPageSource {
    let database: Database
    let tag: Tag

    func page(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        FeedPage(rows: try await self.database.rows(self.statement(viewer: viewer, after: position, limit: limit)), limit: limit)
    }

    func sharedPage(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> (page: FeedPage, marks: ViewerMarks) {
        try await SharedPageRead.page(self.statement(viewer: viewer, after: position, limit: limit), limit: limit, database: self.database)
    }

    private func statement(viewer: UUID, after position: FeedPosition?, limit: Int) -> Page {
        Page(viewer: viewer, key: self.tag.key, position: position, rows: limit + 1)
    }

    /// A page as the viewer (`$1`) sees it (`sql`) or as everyone does (`sharedSQL`); `$2` the tag's key.
    struct Page: PageStatement, SharedPageStatement {
        static let sql = Self.text(CardRow.pageReading(for: "$1"))
        static let sharedSQL = Self.text(CardRow.sharedPageReading(for: "$1"))

        private static func text(_ reading: CardRow.PageReading) -> String {
            KeysetPageSQL.text(
                columns: reading.columns, from: "FROM card_tags t JOIN cards c ON c.id = t.card_id \(CardRow.joins(viewer: "$1"))",
                scope: "t.tag_key = $2 AND \(reading.filter)", keys: ("t.created_at", "t.card_id"), first: 3)
        }

        let viewer: UUID
        let key: String
        let position: FeedPosition?
        let rows: Int

        func bindSubject(to bindings: inout PostgresBindings) {
            bindings.append(self.viewer)
            bindings.append(self.key)
        }
    }
}
