import Logging
import PostgresNIO

/// Brings a database's schema up to date with the bundled migrations.
///
/// Each migration runs once, in order, in its own transaction, and is recorded with its checksum
/// in `schema_migrations`. Concurrent starters (several server instances, or `soom migrate`
/// beside a server) are serialised with a PostgreSQL advisory lock (`AdvisoryLock.migrations`). An applied migration whose
/// file has changed stops everything with `MigrationError.changedAfterApplying`. Then, under the same lock,
/// the one data step SQL cannot do: `NicknameRekey`.
public struct Migrator: Sendable {
    let client: PostgresClient
    let migrations: [Migration]
    let logger: Logger

    public init(client: PostgresClient, migrations: [Migration], logger: Logger) {
        self.client = client
        self.migrations = migrations
        self.logger = logger
    }

    /// Applies what is missing; returns the names of the migrations it applied.
    @discardableResult
    public func migrate() async throws -> [String] {
        try await self.client.withConnection { connection in
            // A server's pool bounds every statement (`DatabaseConfiguration.statementTimeout`);
            // migrations and the wait for another instance's migration are not bounded. RESET
            // restores the connection's own values before it goes back to the pool.
            try await connection.query("SET statement_timeout = 0", logger: self.logger)
            try await connection.query("SET lock_timeout = 0", logger: self.logger)
            try await connection.query("SELECT pg_advisory_lock(\(AdvisoryLock.migrations.rawValue))", logger: self.logger)
            do {
                let applied = try await self.applyPending(on: connection)
                _ = try await NicknameRekey.run(on: connection, logger: self.logger)
                try await connection.query("SELECT pg_advisory_unlock(\(AdvisoryLock.migrations.rawValue))", logger: self.logger)
                try await connection.query("RESET statement_timeout", logger: self.logger)
                try await connection.query("RESET lock_timeout", logger: self.logger)
                return applied
            } catch {
                // The lock is per session; release it so a retry or another instance can proceed.
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(AdvisoryLock.migrations.rawValue))", logger: self.logger)
                _ = try? await connection.query("RESET statement_timeout", logger: self.logger)
                _ = try? await connection.query("RESET lock_timeout", logger: self.logger)
                throw error
            }
        }
    }

    private func applyPending(on connection: PostgresConnection) async throws -> [String] {
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now())
            """, logger: self.logger)
        var recorded: [Int: String] = [:]
        for try await row in try await connection.query("SELECT version, checksum FROM schema_migrations", logger: self.logger) {
            let (version, checksum) = try RowCells.decode(row, Int.self, String.self)
            recorded[version] = checksum
        }
        for migration in self.migrations {
            if let checksum = recorded[migration.version], checksum != migration.checksum {
                throw MigrationError.changedAfterApplying(name: migration.name, applied: checksum, file: migration.checksum)
            }
        }
        let known = Set(self.migrations.map(\.version))
        for version in recorded.keys.sorted() where !known.contains(version) {
            // A newer build migrated this database; older instances keep working during a rolling deploy.
            self.logger.notice("database has a migration this build does not know", metadata: ["version": "\(version)"])
        }
        var applied: [String] = []
        for migration in self.migrations where recorded[migration.version] == nil {
            try await self.apply(migration, on: connection)
            applied.append(migration.name)
            self.logger.info("applied migration", metadata: ["migration": "\(migration.name)"])
        }
        return applied
    }

    private func apply(_ migration: Migration, on connection: PostgresConnection) async throws {
        do {
            try await connection.query("BEGIN", logger: self.logger)
            try await connection.query(UnpreparedSQL.script(migration.sql), logger: self.logger)
            try await connection.query(
                "INSERT INTO schema_migrations (version, name, checksum) VALUES (\(migration.version), \(migration.name), \(migration.checksum))",
                logger: self.logger)
            try await connection.query("COMMIT", logger: self.logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: self.logger)
            throw MigrationError.failed(name: migration.name, reason: String(reflecting: error))
        }
    }
}
