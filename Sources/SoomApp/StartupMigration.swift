import Logging
import PostgresNIO
import ServiceLifecycle
import SoomData

/// Waits until PostgreSQL answers, then applies the pending migrations (before the server
/// listens). While PostgreSQL is still unreachable at start-up, SIGTERM must stop the wait (a
/// container would otherwise be killed after its stop timeout).
func migrateWhenReachable(_ database: DatabaseConfiguration, client: PostgresClient, logger: Logger, databaseLogger: Logger) async throws {
    let applied = try await cancelWhenGracefulShutdown {
        try await DatabaseProbe.waitUntilReachable(database, logger: databaseLogger)
        return try await Migrator(client: client, migrations: try Migration.bundled(), logger: databaseLogger).migrate()
    }
    logger.info("database schema is up to date", metadata: ["applied": "\(applied.count)", "database": "\(database)"])
}
