import Foundation
import PostgresNIO
import SoomDomain

/// The hot tag reads as prepared statements (parsed and planned once per connection).
///
/// As in `CardStatements`, the top ten and the tag feed are bounded by a constant inside and cut
/// to the page's rows outside, so that PostgreSQL's generic plan is costed for a few rows and used instead of
/// re-planning every execution.
enum TagStatements {
    /// The most rows any tag list returns (search's largest `limit`).
    static let maximumRows = TagSearch.maximumLimit

    /// The top ten: the first entries of `tags_ranked_by_authors_idx` (by how many accounts use
    /// the tag, then cards, then key), whatever the number of cards or tags.
    struct Ranked: NamedStatement {
        static let sql: String = {
            var parameters = Parameters()
            let limit = parameters.next()
            return """
                SELECT name, usage_count FROM (
                    SELECT name, usage_count, author_count, key FROM tags WHERE usage_count > 0
                    ORDER BY author_count DESC, usage_count DESC, key LIMIT \(maximumRows)
                ) top ORDER BY author_count DESC, usage_count DESC, key LIMIT \(limit)
                """
        }()
        typealias Row = TagUsage
        static let boundedRows = TagStatements.maximumRows

        let limit: Int

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(min(self.limit, Self.boundedRows))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            let (name, count) = try RowCells.decode(row, String.self, Int.self)
            return TagUsage(name: name, usageCount: count)
        }
    }

    /// Prefix search: the case-folded prefix, the limit, and the prefix's length in characters
    /// (Unicode scalars, as PostgreSQL's `left` counts them), at most 3.
    ///
    /// One branch runs (the others are one-time filters that are false): a prefix of one, two or
    /// three characters reads the first entries of `tags_first1_idx`, `…2` or `…3` — its group,
    /// by count, exactly the answer. A longer prefix reads its three-character group by count and
    /// keeps the keys that start with it. Nothing depends on the number of cards or tags beyond
    /// the size of one three-character group.
    struct Search: NamedStatement {
        static let sql: String = {
            var parameters = Parameters()
            let prefix = parameters.next()
            let limit = parameters.next()
            let length = parameters.next()
            return """
                SELECT name, usage_count FROM (
                    (SELECT key, name, usage_count FROM tags WHERE left(key, 1) = \(prefix) AND usage_count > 0 AND \(length)::int = 1
                     ORDER BY usage_count DESC, key LIMIT \(maximumRows))
                    UNION ALL
                    (SELECT key, name, usage_count FROM tags WHERE left(key, 2) = \(prefix) AND usage_count > 0 AND \(length)::int = 2
                     ORDER BY usage_count DESC, key LIMIT \(maximumRows))
                    UNION ALL
                    (SELECT key, name, usage_count FROM tags WHERE left(key, 3) = left(\(prefix), 3) AND starts_with(key, \(prefix)) AND usage_count > 0 AND \(length)::int = 3
                     ORDER BY usage_count DESC, key LIMIT \(maximumRows))
                ) found
                ORDER BY usage_count DESC, key LIMIT \(limit)
                """
        }()
        typealias Row = TagUsage
        static let boundedRows = TagStatements.maximumRows

        let prefix: String
        let limit: Int

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(self.prefix)
            bindings.append(min(self.limit, Self.boundedRows))
            bindings.append(min(self.prefix.unicodeScalars.count, 3))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            let (name, count) = try RowCells.decode(row, String.self, Int.self)
            return TagUsage(name: name, usageCount: count)
        }
    }
}
