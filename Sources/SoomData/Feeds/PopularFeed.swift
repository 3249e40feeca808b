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
        let rows = try await self.database.rows(Page(viewer: viewer, position: position, rows: limit + 1))
        let page = rows.prefix(limit)
        return FeedPage(cards: page.map(\.card), next: rows.count > limit ? page.last?.position : nil)
    }

    func positions(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> [FeedPosition] {
        try await self.database.rows(Positions(position: position, rows: limit + 1))
    }

    /// A card's position from the ranking's columns that end every row (`r.rank`, `r.generation`).
    private static func position(id: UUID, micros: Int64, cells: inout RowCells) throws -> FeedPosition {
        let rank = try cells.next(Int.self)
        return FeedPosition(createdAtMicros: micros, id: id, ranking: FeedPosition.Ranking(generation: try cells.next(Int64.self), rank: rank))
    }

    /// The statement's text: `columns` of the ranking's cards `filter` keeps after the cursor's rank
    /// in its generation (the latest, when the cursor's is gone or there is none), in rank order,
    /// each row ending with `r.rank` and `r.generation`. Takes the generation, the rank and the
    /// page's rows from `parameters`, after what the caller took.
    private static func text(columns: String, joins: String, filter: String, parameters: inout Parameters) -> String {
        let (generation, rank, rows) = (parameters.next(), parameters.next(), parameters.next())
        return """
            SELECT \(columns), r.rank, r.generation
            FROM popular_rankings r JOIN cards c ON c.id = r.card_id \(joins)
            WHERE r.generation = (SELECT COALESCE(
                    (SELECT generation FROM popular_generations WHERE generation = \(generation)),
                    (SELECT max(generation) FROM popular_generations)))
              AND r.rank > \(rank) AND \(filter)
            ORDER BY r.rank LIMIT \(rows)
            """
    }

    /// The bindings after the caller's: the cursor's generation and rank, and the page's rows.
    private static func bind(_ position: FeedPosition?, rows: Int, to bindings: inout PostgresBindings) {
        bindings.append(position?.ranking?.generation)
        bindings.append(position?.ranking?.rank ?? 0)
        bindings.append(rows)
    }

    /// A page as the viewer sees it.
    struct Page: NamedStatement {
        static let sql: String = {
            var parameters = Parameters()
            let viewer = parameters.next()
            return PopularFeed.text(
                columns: CardRow.select(viewer: viewer), joins: CardRow.joins(viewer: viewer), filter: CardRow.visible(to: viewer),
                parameters: &parameters)
        }()
        typealias Row = (card: Card, position: FeedPosition)

        let viewer: UUID
        let position: FeedPosition?
        let rows: Int

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 4)
            bindings.append(self.viewer)
            PopularFeed.bind(self.position, rows: self.rows, to: &bindings)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            var cells = RowCells(row)
            let (card, micros) = try CardRow.decode(&cells)
            return (card, try PopularFeed.position(id: card.id, micros: micros, cells: &cells))
        }
    }

    /// The positions of a page's live cards, the same for everyone.
    struct Positions: NamedStatement {
        static let sql: String = {
            var parameters = Parameters()
            return PopularFeed.text(columns: CardRow.position, joins: "", filter: CardRow.live, parameters: &parameters)
        }()
        typealias Row = FeedPosition

        let position: FeedPosition?
        let rows: Int

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            PopularFeed.bind(self.position, rows: self.rows, to: &bindings)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            var cells = RowCells(row)
            let id = try cells.next(UUID.self)
            return try PopularFeed.position(id: id, micros: try cells.next(Int64.self), cells: &cells)
        }
    }
}
