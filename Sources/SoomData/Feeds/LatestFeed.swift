import Foundation
import PostgresNIO
import SoomDomain

/// The latest feed: every live top-level card, newest first, through `cards_latest_idx`. Its pages
/// look the same to everyone, so they are kept whole (`SharedPageSource`).
struct LatestFeed: SharedPageSource {
    let database: Database

    func page(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        FeedPage(rows: try await self.database.rows(Page(viewer: viewer, position: position, rows: limit + 1)), limit: limit)
    }

    func sharedPage(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> (page: FeedPage, marks: ViewerMarks) {
        try await SharedPageRead.page(Page(viewer: viewer, position: position, rows: limit + 1), limit: limit, database: self.database)
    }

    /// A page as the viewer (`$1`) sees it (`sql`) or as everyone does (`sharedSQL`).
    struct Page: PageStatement, SharedPageStatement {
        static let sql = Self.text(CardRow.pageReading(for: "$1"))
        static let sharedSQL = Self.text(CardRow.sharedPageReading(for: "$1"))

        private static func text(_ reading: CardRow.PageReading) -> String {
            KeysetPageSQL.text(
                columns: reading.columns, from: CardStatements.from, scope: "c.parent_id IS NULL AND \(reading.filter)",
                keys: ("c.created_at", "c.id"), first: 2)
        }

        let viewer: UUID
        let position: FeedPosition?
        let rows: Int

        func bindSubject(to bindings: inout PostgresBindings) { bindings.append(self.viewer) }
    }
}
