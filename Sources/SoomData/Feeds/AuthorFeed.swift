import Foundation
import PostgresNIO
import SoomDomain

/// An account's top-level cards, newest first, through `cards_author_feed_idx`. Which cards a page
/// holds is the same for everyone, so pages are made from kept cards (`PositionSource`).
struct AuthorFeed: PositionSource {
    let database: Database
    let author: UUID

    var positionsAreShared: Bool { true }

    /// `nil` when the author does not exist or blocked the viewer (an empty page asks).
    func page(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        let rows = try await self.database.rows(Page(viewer: viewer, author: self.author, position: position, rows: limit + 1))
        if rows.isEmpty, !(try await self.authorVisible(to: viewer)) { return nil }
        return FeedPage(rows: rows, limit: limit)
    }

    func positions(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> [FeedPosition] {
        try await self.database.rows(Positions(author: self.author, position: position, rows: limit + 1))
    }

    private func authorVisible(to viewer: UUID) async throws -> Bool {
        !(try await self.database.rows(
            """
            SELECT 1 FROM accounts a WHERE a.id = \(self.author)
              AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = a.id AND b.blocked_id = \(viewer))
            """
        )).isEmpty
    }

    /// A page as the viewer sees it.
    struct Page: PageStatement, CardRowStatement {
        static let sql: String = {
            var parameters = Parameters()
            let (viewer, author) = (parameters.next(), parameters.next())
            return KeysetPageSQL.cards(viewer: viewer, scope: "c.author_id = \(author) AND c.parent_id IS NULL", parameters: &parameters)
        }()

        let viewer: UUID
        let author: UUID
        let position: FeedPosition?
        let rows: Int

        func bindSubject(to bindings: inout PostgresBindings) {
            bindings.append(self.viewer)
            bindings.append(self.author)
        }
    }

    /// The positions of a page's live cards, the same for everyone.
    struct Positions: PageStatement, PositionRowStatement {
        static let sql: String = {
            var parameters = Parameters()
            let author = parameters.next()
            return KeysetPageSQL.text(
                columns: CardRow.position, from: "FROM cards c", scope: "c.author_id = \(author) AND c.parent_id IS NULL AND \(CardRow.live)",
                keys: ("c.created_at", "c.id"), parameters: &parameters)
        }()

        let author: UUID
        let position: FeedPosition?
        let rows: Int

        func bindSubject(to bindings: inout PostgresBindings) { bindings.append(self.author) }
    }
}
