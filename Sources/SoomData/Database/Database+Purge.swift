import Foundation
import PostgresNIO

extension Database {
    /// Deletes up to `limit` rows of `table` whose `time` column is before `cutoff`, oldest first,
    /// and returns how many. Rows another instance's round holds are skipped (`SKIP LOCKED`), so
    /// every instance may run the same purge at once. `key` is the table's primary key column;
    /// `time` must be indexed, so a round costs the rows it deletes, not the table's size.
    /// `table`, `key` and `time` are the caller's constants, never input.
    func purge(_ table: StaticString, key: StaticString, time: StaticString, before cutoff: Date, limit: Int) async throws -> Int {
        let (table, key, time) = ("\(table)", "\(key)", "\(time)")
        let rows = try await self.rows(
            """
            WITH old AS (
                SELECT \(unescaped: key) FROM \(unescaped: table) WHERE \(unescaped: time) < \(cutoff)
                ORDER BY \(unescaped: time) LIMIT \(limit) FOR UPDATE SKIP LOCKED),
            deleted AS (DELETE FROM \(unescaped: table) WHERE \(unescaped: key) IN (SELECT \(unescaped: key) FROM old) RETURNING 1)
            SELECT count(*)::int FROM deleted
            """)
        return try rows[0].decode(Int.self)
    }
}
