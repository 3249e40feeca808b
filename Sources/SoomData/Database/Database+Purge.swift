import Foundation
import PostgresNIO

extension Database {
    /// A table that `purge` empties of its old rows: its name, its primary key column and the
    /// indexed column of its rows' time, and what else keeps a row, named once here (never input).
    struct Purged: Sendable {
        let table: String
        let key: String
        let time: String
        /// A condition a purged row must also meet (`AND …`), or "".
        var also = ""

        static let notifications = Purged(table: "notifications", key: "id", time: "created_at")
        /// A withdrawal keeps its record while the restriction it carries runs (the rejoin rule needs it).
        static let withdrawals = Purged(
            table: "withdrawals", key: "id", time: "withdrawn_at", also: "AND (restricted_until IS NULL OR restricted_until < now())")
    }

    /// Deletes up to `limit` rows of `purged`'s table whose time is before `cutoff`, oldest first,
    /// and returns how many. Rows another instance's round holds are skipped (`SKIP LOCKED`), so
    /// every instance may run the same purge at once. The time column is indexed, so a round costs
    /// the rows it deletes, not the table's size.
    func purge(_ purged: Purged, before cutoff: Date, limit: Int) async throws -> Int {
        let (table, key, time, also) = (purged.table, purged.key, purged.time, purged.also)
        let rows = try await self.rows(
            """
            WITH old AS (
                SELECT \(unescaped: key) FROM \(unescaped: table) WHERE \(unescaped: time) < \(cutoff) \(unescaped: also)
                ORDER BY \(unescaped: time) LIMIT \(limit) FOR UPDATE SKIP LOCKED),
            deleted AS (DELETE FROM \(unescaped: table) WHERE \(unescaped: key) IN (SELECT \(unescaped: key) FROM old) RETURNING 1)
            SELECT count(*)::int FROM deleted
            """)
        return try RowCells.decode(rows[0], Int.self)
    }
}
