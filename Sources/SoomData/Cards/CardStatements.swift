import Foundation
import PostgresNIO
import SoomDomain

/// The busiest card reads as prepared statements: parsed and planned once per connection.
/// (The other feeds build their SQL per request with `SQLBuilder`.)
enum CardStatements {
    static let from = "FROM cards c JOIN accounts a ON a.id = c.author_id"

    /// One card as the viewer ($1) sees it.
    struct Detail: PostgresPreparedStatement {
        static let sql = "SELECT \(CardRow.select(viewer: "$1")) \(CardStatements.from) WHERE c.id = $2 AND \(CardRow.live)"
        typealias Row = (card: Card, micros: Int64)

        let viewer: UUID
        let id: UUID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(self.viewer)
            bindings.append(self.id)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try CardRow.decode(row) }
    }

    /// The first page of the latest feed.
    struct LatestFirst: PostgresPreparedStatement {
        static let sql = """
            SELECT \(CardRow.select(viewer: "$1")) \(CardStatements.from)
            WHERE c.parent_id IS NULL AND \(CardRow.live) ORDER BY c.created_at DESC, c.id DESC LIMIT $2
            """
        typealias Row = (card: Card, micros: Int64)

        let viewer: UUID
        let limit: Int

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(self.viewer)
            bindings.append(self.limit)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try CardRow.decode(row) }
    }

    /// A later page of the latest feed, after a keyset position.
    struct LatestAfter: PostgresPreparedStatement {
        static let sql = """
            SELECT \(CardRow.select(viewer: "$1")) \(CardStatements.from)
            WHERE c.parent_id IS NULL AND \(CardRow.live)
              AND (c.created_at, c.id) < (timestamptz 'epoch' + $2::int8 * interval '1 microsecond', $3)
            ORDER BY c.created_at DESC, c.id DESC LIMIT $4
            """
        typealias Row = (card: Card, micros: Int64)

        let viewer: UUID
        let position: FeedPosition
        let limit: Int

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 4)
            bindings.append(self.viewer)
            bindings.append(self.position.createdAtMicros)
            bindings.append(self.position.id)
            bindings.append(self.limit)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try CardRow.decode(row) }
    }
}
