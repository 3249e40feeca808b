import Foundation
import PostgresNIO
import SoomDomain

/// `TagRepository` on PostgreSQL. Reads come from `tags` indexes (never from scanning cards);
/// the counts themselves are written by `PostgresCardRepository` (see `TagUsageSQL`).
public struct PostgresTagRepository: TagRepository {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    public func ranked(limit: Int) async throws -> [TagUsage] {
        try await self.database.rows(TagStatements.Ranked(limit: limit))
    }

    public func search(prefix: String, limit: Int) async throws -> [TagUsage] {
        try await self.database.rows(TagStatements.Search(prefix: prefix, limit: limit))
    }

    public func detail(of tag: Tag, viewer: UUID?) async throws -> TagDetail {
        let rows = try await self.database.rows(
            """
            SELECT (SELECT name FROM tags WHERE key = \(tag.key)), (SELECT usage_count FROM tags WHERE key = \(tag.key)),
                   EXISTS (SELECT 1 FROM favorite_tags WHERE account_id = \(viewer) AND tag_key = \(tag.key))
            """)
        let (name, count, favorite) = try RowCells.decode(rows[0], String?.self, Int?.self, Bool.self)
        return TagDetail(name: name ?? tag.name, usageCount: count ?? 0, isFavorite: favorite)
    }

    /// Adding locks the account row first, so concurrent adds by one account are counted one
    /// after the other and the limit holds exactly.
    public func setFavorite(_ favorite: Bool, tag: Tag, account: UUID, limit: Int) async throws -> FavoriteOutcome {
        guard favorite else {
            try await self.database.execute("DELETE FROM favorite_tags WHERE account_id = \(account) AND tag_key = \(tag.key)")
            return .done(favorite: false)
        }
        let logger = self.database.logger
        return try await self.database.transaction { connection in
            // Its own statement: the count below must be read after the lock is granted (a new snapshot).
            let locked = try await connection.query("SELECT 1 FROM accounts WHERE id = \(account) FOR NO KEY UPDATE", logger: logger).collect()
            // Withdrawn while the request was on its way: the session is gone too.
            if locked.isEmpty { throw SoomError.unauthorized }
            let rows = try await connection.query(
                """
                WITH existing AS (
                    SELECT count(*) AS n, COALESCE(bool_or(tag_key = \(tag.key)), false) AS has FROM favorite_tags WHERE account_id = \(account)),
                added AS (
                    INSERT INTO favorite_tags (account_id, tag_key, name, created_at)
                    SELECT \(account), \(tag.key), \(tag.name), now() FROM existing WHERE n < \(limit) AND NOT has
                    ON CONFLICT DO NOTHING RETURNING 1)
                SELECT (SELECT has FROM existing) OR EXISTS (SELECT 1 FROM added)
                """, logger: logger
            ).collect()
            return try RowCells.decode(rows[0], Bool.self) ? .done(favorite: true) : .limitReached
        }
    }

    public func favorites(of account: UUID) async throws -> [TagUsage] {
        let rows = try await self.database.rows(
            """
            SELECT COALESCE(t.name, f.name), COALESCE(t.usage_count, 0)
            FROM favorite_tags f LEFT JOIN tags t ON t.key = f.tag_key
            WHERE f.account_id = \(account) ORDER BY f.created_at, f.tag_key
            """)
        return try rows.map { row in
            let (name, count) = try RowCells.decode(row, String.self, Int.self)
            return TagUsage(name: name, usageCount: count)
        }
    }
}
