import Foundation
import PostgresNIO
import SoomDomain

/// A card's comment cards, newest first, read for each viewer (`cards_comments_idx`).
struct CommentsFeed: FeedSource {
    let database: Database
    let parent: UUID

    /// `nil` when the viewer may not see the card answered (an empty page asks).
    func page(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        let rows = try await self.database.rows(Page(viewer: viewer, parent: self.parent, position: position, rows: limit + 1))
        if rows.isEmpty, try await self.database.first(ParentVisible(viewer: viewer, parent: self.parent)) == nil { return nil }
        return FeedPage(rows: rows, limit: limit)
    }

    /// A page as the viewer sees it.
    struct Page: PageStatement, CardRowStatement {
        static let sql: String = {
            var parameters = Parameters()
            let (viewer, parent) = (parameters.next(), parameters.next())
            return KeysetPageSQL.cards(viewer: viewer, scope: "c.parent_id = \(parent)", parameters: &parameters)
        }()

        let viewer: UUID
        let parent: UUID
        let position: FeedPosition?
        let rows: Int

        func bindSubject(to bindings: inout PostgresBindings) {
            bindings.append(self.viewer)
            bindings.append(self.parent)
        }
    }

    /// Whether the viewer may see the card answered: one row if so.
    struct ParentVisible: NamedStatement {
        static let sql: String = {
            var parameters = Parameters()
            let (viewer, parent) = (parameters.next(), parameters.next())
            return "SELECT 1 FROM cards c WHERE c.id = \(parent) AND \(CardRow.visible(to: viewer))"
        }()
        typealias Row = Int

        let viewer: UUID
        let parent: UUID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(self.viewer)
            bindings.append(self.parent)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Int {
            var cells = RowCells(row)
            return try cells.next(Int.self)
        }
    }
}
