import PostgresNIO

/// The PostgreSQL advisory locks Soom's instances agree on: one per kind of work only one instance
/// may do at a time. The keys are arbitrary and fixed: the ASCII of a short name.
public enum AdvisoryLock: Int64, Sendable {
    /// Applying migrations (`Migrator`), held for the whole run by the session ("soommigr").
    case migrations = 0x736F_6F6D_6D69_6772
    /// Computing the popular ranking (`refreshPopularRanking`) ("soompopu").
    case popularRanking = 0x736F_6F6D_706F_7075
    /// Refreshing the planner's statistics (`PlannerStatistics`) ("soomstat").
    case plannerStatistics = 0x736F_6F6D_7374_6174
}

extension Database {
    /// Runs `body` in one transaction that holds `lock`, the work of one instance at a time; nil,
    /// without running it, when another session holds the lock (another instance is doing this
    /// round). The lock ends with the transaction, whether it commits or rolls back.
    public func transaction<Result: Sendable>(
        holding lock: AdvisoryLock, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result? {
        try await self.transaction { connection -> Result? in
            let locked = try await connection.query("SELECT pg_try_advisory_xact_lock(\(lock.rawValue))", logger: self.logger).collect()
            guard try RowCells.decode(locked[0], Bool.self) else { return nil }
            return try await body(connection)
        }
    }
}
