import Foundation
import PostgresNIO
import SoomDomain

/// A card's comment cards, newest first, read for each viewer (`cards_comments_idx`).
struct CommentsFeed: FeedSource {
    let database: Database
    let parent: UUID

    func page(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        let rows = try await ViewerPageSQL.rows(self.database, viewer: viewer, after: position, limit: limit) { builder in
            "c.parent_id = \(builder.bind(self.parent))"
        }
        if rows.isEmpty, !(try await self.parentVisible(to: viewer)) { return nil }
        return FeedPage(rows: rows, limit: limit)
    }

    /// Whether the viewer may see the card answered.
    private func parentVisible(to viewer: UUID) async throws -> Bool {
        var builder = SQLBuilder()
        let viewerParameter = builder.bind(viewer)
        builder.append("SELECT 1 FROM cards c WHERE c.id = \(builder.bind(self.parent)) AND \(CardRow.visible(to: viewerParameter))")
        return !(try await self.database.rows(builder.query)).isEmpty
    }
}
