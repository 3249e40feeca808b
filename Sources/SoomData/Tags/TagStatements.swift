import Foundation
import PostgresNIO
import SoomDomain

/// The hot tag reads as prepared statements (parsed and planned once per connection).
///
/// As in `CardStatements`, the top ten and the tag feed are bounded by a constant inside and cut
/// to `$n` outside, so that PostgreSQL's generic plan is costed for a few rows and used instead of
/// re-planning every execution. Search is left to custom plans on purpose: the prefix decides the
/// size of the key range, and a generic plan cannot see it.
enum TagStatements {
    /// The most rows any tag list returns (search's largest `limit`).
    static let maximumRows = TagSearch.maximumLimit

    /// The top ten: the first entries of `tags_ranked_idx`, whatever the number of cards or tags.
    struct Ranked: PostgresPreparedStatement {
        static let sql = """
            SELECT name, usage_count FROM (
                SELECT name, usage_count, key FROM tags WHERE usage_count > 0 ORDER BY usage_count DESC, key LIMIT \(maximumRows)
            ) top ORDER BY usage_count DESC, key LIMIT $1
            """
        typealias Row = TagUsage
        static let boundedRows = TagStatements.maximumRows

        let limit: Int

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(min(self.limit, Self.boundedRows))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            let (name, count) = try row.decode((String, Int).self)
            return TagUsage(name: name, usageCount: count)
        }
    }

    /// Prefix search ($1: the case-folded prefix; $2: the limit).
    ///
    /// A prefix is a range of keys in byte order (`COLLATE "C"`; no allowed character sorts
    /// after U+10FFFF). When that range holds at most `few` in-use tags they are read from
    /// `tags_in_use_prefix_idx` and sorted by count. A short prefix can match thousands of
    /// tags: then the ranked index is walked from the top, keeping matching keys, which stops
    /// after `limit` matches — quick precisely because such a prefix is common.
    struct Search: PostgresPreparedStatement {
        static let few = 256
        static let sql = """
            WITH candidates AS MATERIALIZED (
                SELECT key, name, usage_count FROM tags
                WHERE key >= $1 AND key < $1 || chr(1114111) AND usage_count > 0
                ORDER BY key LIMIT \(few + 1))
            SELECT name, usage_count FROM (
                SELECT * FROM (SELECT key, name, usage_count FROM candidates ORDER BY usage_count DESC, key LIMIT $2) few
                WHERE (SELECT count(*) FROM candidates) <= \(few)
                UNION ALL
                SELECT * FROM (
                    SELECT key, name, usage_count FROM tags WHERE usage_count > 0 AND starts_with(key, $1)
                    ORDER BY usage_count DESC, key LIMIT $2) many
                WHERE (SELECT count(*) FROM candidates) > \(few)) found
            ORDER BY usage_count DESC, key
            """
        typealias Row = TagUsage
        static let boundedRows = TagStatements.maximumRows

        let prefix: String
        let limit: Int

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(self.prefix)
            bindings.append(min(self.limit, Self.boundedRows))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            let (name, count) = try row.decode((String, Int).self)
            return TagUsage(name: name, usageCount: count)
        }
    }

    static let feedFrom = "FROM card_tags t JOIN cards c ON c.id = t.card_id \(CardRow.joins(viewer: "$1"))"

    /// The first page of a tag feed: viewer $1, tag key $2, limit $3.
    struct FeedFirst: PostgresPreparedStatement {
        static let sql = """
            SELECT * FROM (
                SELECT \(CardRow.select(viewer: "$1")) \(TagStatements.feedFrom)
                WHERE t.tag_key = $2 AND \(CardRow.visible(to: "$1")) ORDER BY t.created_at DESC, t.card_id DESC LIMIT \(CardStatements.maximumPageRows)
            ) page LIMIT $3
            """
        typealias Row = (card: Card, micros: Int64)
        static let boundedRows = CardStatements.maximumPageRows

        let viewer: UUID
        let key: String
        let limit: Int

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(self.viewer)
            bindings.append(self.key)
            bindings.append(min(self.limit, Self.boundedRows))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try CardRow.decode(row) }
    }

    /// A later page of a tag feed, after a keyset position: viewer $1, key $2, micros $3, id $4, limit $5.
    struct FeedAfter: PostgresPreparedStatement {
        static let sql = """
            SELECT * FROM (
                SELECT \(CardRow.select(viewer: "$1")) \(TagStatements.feedFrom)
                WHERE t.tag_key = $2 AND \(CardRow.visible(to: "$1"))
                  AND (t.created_at, t.card_id) < (timestamptz 'epoch' + $3::int8 * interval '1 microsecond', $4)
                ORDER BY t.created_at DESC, t.card_id DESC LIMIT \(CardStatements.maximumPageRows)
            ) page LIMIT $5
            """
        typealias Row = (card: Card, micros: Int64)
        static let boundedRows = CardStatements.maximumPageRows

        let viewer: UUID
        let key: String
        let position: FeedPosition
        let limit: Int

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 5)
            bindings.append(self.viewer)
            bindings.append(self.key)
            bindings.append(self.position.createdAtMicros)
            bindings.append(self.position.id)
            bindings.append(min(self.limit, Self.boundedRows))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try CardRow.decode(row) }
    }
}
