import Logging
import PostgresNIO

/// Migrates a database outside a running server (`soom migrate`): opens a pool, applies the
/// bundled migrations, closes the pool.
public enum DatabaseMigration {
    @discardableResult
    public static func run(_ configuration: DatabaseConfiguration, logger: Logger) async throws -> [String] {
        let client = PostgresClient(configuration: configuration.clientConfiguration, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let database = Database(client: client, logger: logger, deadline: .seconds(60))
            let applied = try await database.withDeadline {
                try await Migrator(client: client, migrations: try Migration.bundled(), logger: logger).migrate()
            }
            logger.info("database schema is up to date", metadata: ["applied": "\(applied)", "database": "\(configuration)"])
            return applied
        }
    }
}
