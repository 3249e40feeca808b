import Foundation
import PostgresNIO
import SoomDomain

/// An account's top-level cards, newest first, through `cards_author_feed_idx`. Which cards a page
/// holds is the same for everyone, so pages are made from kept cards (`PositionSource`).
struct AuthorFeed: PositionSource {
    let database: Database
    let author: UUID

    var positionsAreShared: Bool { true }

    func page(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        let rows = try await ViewerPageSQL.rows(self.database, viewer: viewer, after: position, limit: limit) { builder in
            "c.author_id = \(builder.bind(self.author)) AND c.parent_id IS NULL"
        }
        if rows.isEmpty, !(try await self.authorVisible(to: viewer)) { return nil }
        return FeedPage(rows: rows, limit: limit)
    }

    func positions(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> [FeedPosition] {
        try await self.database.rows(Positions(author: self.author, position: position, rows: limit + 1))
    }

    /// Whether the author exists and did not block the viewer.
    private func authorVisible(to viewer: UUID) async throws -> Bool {
        !(try await self.database.rows(
            """
            SELECT 1 FROM accounts a WHERE a.id = \(self.author)
              AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = a.id AND b.blocked_id = \(viewer))
            """
        )).isEmpty
    }

    /// The author's (`$1`) live top-level cards' positions.
    struct Positions: PageStatement, PositionRowStatement {
        static let sql = KeysetPageSQL.text(
            columns: CardRow.position, from: "FROM cards c", scope: "c.author_id = $1 AND c.parent_id IS NULL AND \(CardRow.live)",
            keys: ("c.created_at", "c.id"), first: 2)

        let author: UUID
        let position: FeedPosition?
        let rows: Int

        func bindSubject(to bindings: inout PostgresBindings) { bindings.append(self.author) }
    }
}
