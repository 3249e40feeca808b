import Foundation
import PostgresNIO
import SoomDomain

/// The popular feed: the latest ranking generation (or the cursor's, while it is kept), in rank
/// order (`PopularRankingStatements` makes the generations). Which cards a page holds is the same
/// for everyone, so pages are made from kept cards (`PositionSource`).
struct PopularFeed: PositionSource {
    let database: Database

    var positionsAreShared: Bool { true }

    func page(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        let rows = try await self.database.rows(Self.query(for: viewer, after: position, limit: limit)).map { row in
            var cells = RowCells(row)
            let (card, micros) = try CardRow.decode(&cells)
            return (card, try Self.position(id: card.id, micros: micros, cells: &cells))
        }
        let page = rows.prefix(limit)
        return FeedPage(cards: page.map(\.0), next: rows.count > limit ? page.last?.1 : nil)
    }

    func positions(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> [FeedPosition] {
        try await self.database.rows(Self.query(for: nil, after: position, limit: limit)).map { row in
            var cells = RowCells(row)
            let id = try cells.next(UUID.self)
            return try Self.position(id: id, micros: try cells.next(Int64.self), cells: &cells)
        }
    }

    /// A card's position from the ranking's columns that end every row (`r.rank`, `r.generation`).
    private static func position(id: UUID, micros: Int64, cells: inout RowCells) throws -> FeedPosition {
        let rank = try cells.next(Int.self)
        return FeedPosition(createdAtMicros: micros, id: id, ranking: FeedPosition.Ranking(generation: try cells.next(Int64.self), rank: rank))
    }

    /// The rows after `position`, at most `limit + 1`, each ending with `r.rank` and
    /// `r.generation`: for a viewer, the cards visible to them as `CardRow.select` reads them; for
    /// nil, every live card's position (`CardRow.position`).
    private static func query(for viewer: UUID?, after position: FeedPosition?, limit: Int) -> PostgresQuery {
        var builder = SQLBuilder()
        let viewerParameter = viewer.map { builder.bind($0) }
        let generation = builder.bind(position?.ranking?.generation)
        let rank = builder.bind(position?.ranking?.rank ?? 0)
        let limitParameter = builder.bind(limit + 1)
        let (columns, joins, filter) =
            if let viewerParameter {
                (CardRow.select(viewer: viewerParameter), CardRow.joins(viewer: viewerParameter), CardRow.visible(to: viewerParameter))
            } else {
                (CardRow.position, "", CardRow.live)
            }
        builder.append(
            """
            SELECT \(columns), r.rank, r.generation
            FROM popular_rankings r JOIN cards c ON c.id = r.card_id \(joins)
            WHERE r.generation = (SELECT COALESCE(
                    (SELECT generation FROM popular_generations WHERE generation = \(generation)),
                    (SELECT max(generation) FROM popular_generations)))
              AND r.rank > \(rank) AND \(filter)
            ORDER BY r.rank LIMIT \(limitParameter)
            """)
        return builder.query
    }
}
