import Foundation
import PostgresNIO
import SoomDomain

/// A page of cards `visible` to the viewer, newest first, whose scope is one condition of the
/// request (an author's cards, a card's comment cards), built per request with `SQLBuilder`.
enum ViewerPageSQL {
    /// `limit + 1` rows of the cards satisfying `scope` (made with the builder, given the viewer's
    /// placeholder) below `position`.
    static func rows(
        _ database: Database, viewer: UUID, after position: FeedPosition?, limit: Int, scope: (inout SQLBuilder) -> String
    ) async throws -> [(card: Card, micros: Int64)] {
        var builder = SQLBuilder()
        let viewerParameter = builder.bind(viewer)
        var conditions = [CardRow.visible(to: viewerParameter), scope(&builder)]
        if let position { conditions.append(CardRow.after(position, &builder)) }
        let limitParameter = builder.bind(limit + 1)
        builder.append(
            "SELECT \(CardRow.select(viewer: viewerParameter)) FROM cards c \(CardRow.joins(viewer: viewerParameter)) "
                + "WHERE \(conditions.joined(separator: " AND ")) ORDER BY c.created_at DESC, c.id DESC LIMIT \(limitParameter)")
        return try await database.rows(builder.query).map(CardRow.decode)
    }
}
