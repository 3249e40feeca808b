import Foundation
import Logging
import PostgresNIO
import SoomData

/// Runs `body` with a database that has nothing in it (not even the template's schema), dropped
/// afterwards whether `body` returns or throws: for tests that apply migrations themselves.
func withEmptyDatabase(logger: Logger, _ body: (DatabaseConfiguration) async throws -> Void) async throws {
    let server = try await TestPostgres.shared.server()
    var configuration = server.admin
    configuration.database = "soom_migration_" + UUID().uuidString.prefix(8).lowercased()
    let admin = try await TestPostgres.connect(server.admin, logger: logger)
    try await admin.query("CREATE DATABASE \(unescaped: configuration.database)", logger: logger)
    do {
        try await body(configuration)
    } catch {
        _ = try? await admin.query("DROP DATABASE \(unescaped: configuration.database) WITH (FORCE)", logger: logger)
        try? await admin.close()
        throw error
    }
    try await admin.query("DROP DATABASE \(unescaped: configuration.database) WITH (FORCE)", logger: logger)
    try await admin.close()
}
