import Foundation
import PostgresNIO
import SoomDomain

/// The comment cards an account wrote, newest first, through `cards_author_comments_idx` (migration
/// 0023). Only the author reads it (`GET /v1/me/comments`), so it is read for that viewer each time.
struct CommentsByFeed: FeedSource {
    let database: Database
    let author: UUID

    func page(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        FeedPage(rows: try await self.database.rows(Page(viewer: viewer, author: self.author, position: position, rows: limit + 1)), limit: limit)
    }

    /// A page as the viewer sees it.
    struct Page: PageStatement, CardRowStatement {
        static let sql: String = {
            var parameters = Parameters()
            let (viewer, author) = (parameters.next(), parameters.next())
            return KeysetPageSQL.cards(viewer: viewer, scope: "c.author_id = \(author) AND c.parent_id IS NOT NULL", parameters: &parameters)
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
}
