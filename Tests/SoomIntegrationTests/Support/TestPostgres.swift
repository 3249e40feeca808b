import Foundation
import Logging
import PostgresNIO
import SoomData
import SoomHTTP
import Synchronization

/// The one throwaway PostgreSQL of a test run.
///
/// Started on first use: a private cluster in a temporary folder (run as the `postgres` user when
/// the tests run as root), with durability off for speed, stopped and deleted when the test process
/// exits. `SOOM_TEST_DATABASE_URL` points the tests at an existing server instead. A migrated
/// template database makes each test's own database a cheap copy.
actor TestPostgres {
    static let shared = TestPostgres()

    struct Server: Sendable {
        let admin: DatabaseConfiguration
        let template: String
    }

    private var starting: Task<Server, any Error>?
    /// One connection for creating and dropping databases, opened once (the actor may be re-entered while it opens).
    private var adminConnection: Task<PostgresConnection, any Error>?
    private let logger: Logger = {
        var logger = Logger(label: "soom-test-postgres")
        logger.logLevel = .warning
        return logger
    }()

    func server() async throws -> Server {
        if let starting = self.starting { return try await starting.value }
        let logger = self.logger
        let task = Task { try await Self.start(logger: logger) }
        self.starting = task
        return try await task.value
    }

    /// A new database, a copy of the migrated template.
    func makeDatabase() async throws -> DatabaseConfiguration {
        let server = try await self.server()
        var configuration = server.admin
        configuration.database = "soom_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        try await self.admin().query(
            "CREATE DATABASE \(unescaped: configuration.database) TEMPLATE \(unescaped: server.template)", logger: self.logger)
        return configuration
    }

    /// Drops a database made by `makeDatabase`, closing its remaining connections.
    func drop(_ configuration: DatabaseConfiguration) async throws {
        try await self.admin().query("DROP DATABASE IF EXISTS \(unescaped: configuration.database) WITH (FORCE)", logger: self.logger)
    }

    private func admin() async throws -> PostgresConnection {
        if let opening = self.adminConnection { return try await opening.value }
        let logger = self.logger
        let opening = Task { try await Self.connect(try await self.server().admin, logger: logger) }
        self.adminConnection = opening
        return try await opening.value
    }

    private static func start(logger: Logger) async throws -> Server {
        // Before the first database operation: the database's metrics bind to the backend they find.
        SoomMetrics.bootstrap()
        let admin: DatabaseConfiguration
        if let url = ProcessInfo.processInfo.environment["SOOM_TEST_DATABASE_URL"], !url.isEmpty {
            admin = try DatabaseConfiguration(url: url)
        } else {
            let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("soom-test-\(getpid())")
            let embedded = try EmbeddedPostgres(
                dataDirectory: root.appendingPathComponent("postgres"), databaseName: "postgres",
                settings: ["fsync": "off", "synchronous_commit": "off", "full_page_writes": "off", "max_connections": "500"],
                logger: logger)
            ExitCleanup.register(embedded, removing: root)
            // A killed test run (Ctrl-C, a CI timeout, SIGKILL) runs no exit handler: the watchdog
            // stops the cluster and removes its folder once this process is gone.
            try embedded.stopWhenGone(removing: root)
            admin = try await embedded.start()
        }
        let template = "soom_template_\(getpid())"
        try await Self.withConnection(admin, logger: logger) { connection in
            try await connection.query("DROP DATABASE IF EXISTS \(unescaped: template)", logger: logger)
            try await connection.query("CREATE DATABASE \(unescaped: template)", logger: logger)
        }
        var templateConfiguration = admin
        templateConfiguration.database = template
        try await DatabaseMigration.run(templateConfiguration, logger: logger)
        return Server(admin: admin, template: template)
    }

    /// Runs `body` on a new connection and closes it whether `body` returns or throws. (A
    /// `PostgresConnection` dropped unclosed stops a debug build with an assertion, the whole test
    /// process with it.)
    static func withConnection<Result>(
        _ configuration: DatabaseConfiguration, logger: Logger, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let connection = try await Self.connect(configuration, logger: logger)
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    static func connect(_ configuration: DatabaseConfiguration, logger: Logger) async throws -> PostgresConnection {
        try await PostgresConnection.connect(
            configuration: .init(
                host: configuration.host, port: configuration.port, username: configuration.username,
                password: configuration.password, database: configuration.database, tls: .disable),
            id: Int.random(in: 1...Int.max), logger: logger)
    }
}

/// Stops and deletes the throwaway cluster when the test process exits.
enum ExitCleanup {
    private static let clusters = Mutex<[(EmbeddedPostgres, URL)]>([])
    private static let installed = Mutex(false)

    static func register(_ cluster: EmbeddedPostgres, removing folder: URL) {
        self.clusters.withLock { $0.append((cluster, folder)) }
        let first = self.installed.withLock { installed in
            defer { installed = true }
            return !installed
        }
        if first {
            atexit { ExitCleanup.run() }
        }
    }

    static func run() {
        for (cluster, folder) in self.clusters.withLock({ $0 }) {
            cluster.stopImmediately()
            try? FileManager.default.removeItem(at: folder)
        }
    }
}
