import Foundation
import PostgresNIO
import SoomDomain

/// The latest feed: every live top-level card, newest first, through `cards_latest_idx`. Which
/// cards a page holds is the same for everyone, so pages are made from kept cards (`PositionSource`).
struct LatestFeed: PositionSource {
    let database: Database

    var positionsAreShared: Bool { true }

    func page(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        FeedPage(rows: try await self.database.rows(Page(viewer: viewer, position: position, rows: limit + 1)), limit: limit)
    }

    func positions(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> [FeedPosition] {
        try await self.database.rows(Positions(position: position, rows: limit + 1))
    }

    /// A page as the viewer sees it.
    struct Page: PageStatement, CardRowStatement {
        static let sql: String = {
            var parameters = Parameters()
            let viewer = parameters.next()
            return KeysetPageSQL.cards(viewer: viewer, scope: "c.parent_id IS NULL", parameters: &parameters)
        }()

        let viewer: UUID
        let position: FeedPosition?
        let rows: Int

        func bindSubject(to bindings: inout PostgresBindings) { bindings.append(self.viewer) }
    }

    /// The positions of a page's live cards, the same for everyone.
    struct Positions: PageStatement, PositionRowStatement {
        static let sql: String = {
            var parameters = Parameters()
            return KeysetPageSQL.text(
                columns: CardRow.position, from: "FROM cards c", scope: "c.parent_id IS NULL AND \(CardRow.live)", keys: ("c.created_at", "c.id"),
                parameters: &parameters)
        }()

        let position: FeedPosition?
        let rows: Int

        func bindSubject(to bindings: inout PostgresBindings) {}
    }
}
