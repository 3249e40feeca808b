import Foundation
import PostgresNIO

/// Keeps PostgreSQL's planner statistics in step with the data, whatever the data did: a new
/// deployment filling up from nothing, a burst of posts, a restore or a bulk import.
///
/// The planner costs every plan from `pg_class.reltuples`/`relpages` and `pg_statistic`, and a
/// prepared statement's generic plan lives until those change. Autovacuum refreshes them, but
/// only on its own schedule (`autovacuum_naptime`, a minute by default, per database) and only
/// from its activity counters, which a crash or a restore resets. So on a young, growing database
/// the plans are made for tables far smaller than they are — a scan where an index was wanted —
/// for up to a minute after every burst, and for much longer after a restore.
///
/// `refresh()` is one catalog query when nothing is due, and `ANALYZE` of exactly the tables
/// that are: never analysed but holding rows; changed (rows inserted, updated or deleted) by
/// more than `changedRows` plus `changedShare` of their rows since their last analysis; or grown
/// on disk by more than `grownShare` since the planner last counted their pages (which catches
/// what the counters missed). An analysis updates the statistics, and PostgreSQL then plans every
/// cached statement on that table again at its next use, in every session.
///
/// `popular_touched` (migration 0016) is left out: a queue every popular-ranking round empties,
/// only ever read whole, whose churn would make it due every round.
///
/// Safe with several instances: one transaction under an advisory lock; an instance that does not
/// get it skips the round. `ANALYZE (SKIP_LOCKED)` passes over a table autovacuum is analysing.
public struct PlannerStatistics: Sendable {
    /// Rows changed since the last analysis that make a table due, plus `changedShare` of its rows.
    public static let changedRows = 500
    public static let changedShare = 0.1
    /// Growth on disk since the planner last counted a table's pages that makes it due.
    public static let grownShare = 0.2

    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Analyses the tables that are due; their names.
    @discardableResult
    public func refresh() async throws -> [String] {
        let analysed = try await self.database.transaction(holding: .plannerStatistics) { connection -> [String] in
            let logger = self.database.logger
            let due = try await connection.query(
                """
                SELECT c.relname FROM pg_class c
                JOIN pg_namespace n ON n.oid = c.relnamespace
                LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
                WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname NOT IN ('schema_migrations', 'popular_touched')
                  AND ((c.reltuples < 0 AND pg_relation_size(c.oid) > 0)
                    OR COALESCE(s.n_mod_since_analyze, 0) > \(Self.changedRows) + \(Self.changedShare) * greatest(c.reltuples, 0)
                    OR pg_relation_size(c.oid) / current_setting('block_size')::int8 > (1 + \(Self.grownShare)) * c.relpages + 8)
                ORDER BY c.relname
                """, logger: logger
            ).collect().map { try RowCells.decode($0, String.self) }
            guard !due.isEmpty else { return [] }
            try await connection.query(UnpreparedSQL.analyze(due), logger: logger)
            return due
        }
        return analysed ?? []
    }
}
