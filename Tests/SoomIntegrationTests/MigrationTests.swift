import Foundation
import Logging
import PostgresNIO
import SoomData
import Testing

@Suite("SQL migrations")
struct MigrationTests {
    let logger = Logger(label: "soom-test")

    func withEmptyDatabase(_ body: (DatabaseConfiguration) async throws -> Void) async throws {
        try await SoomIntegrationTests.withEmptyDatabase(logger: self.logger, body)
    }

    @Test("the compiled-in migrations are exactly the files in sql/, byte for byte")
    func bundledMatchesFolder() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("sql")
        let onDisk = try Migration.load(from: folder)
        #expect(!onDisk.isEmpty)
        #expect(try Migration.bundled() == onDisk)
    }

    @Test("each migration applies once, in order, recorded with its checksum")
    func appliesOnce() async throws {
        try await self.withEmptyDatabase { configuration in
            let applied = try await DatabaseMigration.run(configuration, logger: self.logger)
            #expect(applied == (try Migration.bundled()).map(\.name))
            #expect(try await DatabaseMigration.run(configuration, logger: self.logger).isEmpty)
            let database = TestDatabase(configuration: configuration)
            #expect(try await database.scalar("SELECT count(*)::int FROM schema_migrations") == applied.count)
            let checksum = try await database.rows("SELECT checksum FROM schema_migrations WHERE version = 1")[0].decode(String.self)
            #expect(checksum == (try Migration.bundled())[0].checksum)
        }
    }

    @Test("concurrent starters are serialised: eight at once apply each migration exactly once")
    func concurrentStarters() async throws {
        try await self.withEmptyDatabase { configuration in
            let results = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<8 { group.addTask { try await DatabaseMigration.run(configuration, logger: self.logger) } }
                return try await group.reduce(into: [[String]]()) { $0.append($1) }
            }
            #expect(results.filter { !$0.isEmpty }.count == 1)
            #expect(results.flatMap { $0 }.count == (try Migration.bundled()).count)
        }
    }

    @Test("an applied migration whose file changed stops everything with a clear message")
    func changedMigration() async throws {
        try await self.withEmptyDatabase { configuration in
            try await DatabaseMigration.run(configuration, logger: self.logger)
            let database = TestDatabase(configuration: configuration)
            try await database.execute("UPDATE schema_migrations SET checksum = 'deadbeef' WHERE version = 1")
            await #expect {
                try await DatabaseMigration.run(configuration, logger: self.logger)
            } throws: { error in
                guard case MigrationError.changedAfterApplying(let name, _, _) = error else { return false }
                return name == "0001_identity.sql" && "\(error)".contains("changed after it was applied")
            }
        }
    }

    @Test("a failing migration is rolled back whole")
    func failingMigrationRollsBack() async throws {
        try await self.withEmptyDatabase { configuration in
            let client = PostgresClient(configuration: configuration.clientConfiguration, backgroundLogger: self.logger)
            let running = Task { await client.run() }
            defer { running.cancel() }
            let broken = Migration(version: 1, name: "0001_broken.sql", sql: "CREATE TABLE half_done (x int);\nSELECT * FROM no_such_table;")
            await #expect(throws: MigrationError.self) {
                try await Migrator(client: client, migrations: [broken], logger: self.logger).migrate()
            }
            let database = TestDatabase(configuration: configuration)
            let halfDone = try await database.scalar("SELECT count(*)::int FROM pg_tables WHERE tablename = 'half_done'")
            let recorded = try await database.scalar("SELECT count(*)::int FROM schema_migrations")
            #expect(halfDone == 0)
            #expect(recorded == 0)
        }
    }
}
