import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import SoomApp
import SoomData
import SoomDomain
import SoomHTTP

/// `soom`: the Soom server and its operator commands.
@main
struct Soom: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soom",
        abstract: "Soom: an anonymous, card-style social feed server.",
        subcommands: [Serve.self, Migrate.self, Seed.self, Admin.self],
        defaultSubcommand: Serve.self
    )
}

/// Options shared by every command that talks to the database.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("data-directory"),
        help: "Where the embedded PostgreSQL keeps its cluster when DATABASE_URL is not set (env SOOM_DATA_DIR).")
    var dataDirectory: String = ProcessInfo.processInfo.environment["SOOM_DATA_DIR"] ?? ".soom"

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (env SOOM_LOG_LEVEL).")
    var logLevel: String = ProcessInfo.processInfo.environment["SOOM_LOG_LEVEL"] ?? "info"

    @Option(
        name: .customLong("log-format"),
        help: "json (one object per line), text, or auto: json unless standard error is a terminal (env SOOM_LOG_FORMAT).")
    var logFormat: LogFormat = LogFormat.fromEnvironment

    @Option(
        name: .customLong("db-pool-size"),
        help: "PostgreSQL connections this instance keeps open, 1-100 (env SOOM_DB_POOL_SIZE). About 2-4 per database core, divided among instances.")
    var poolSize: Int = ProcessInfo.processInfo.environment["SOOM_DB_POOL_SIZE"].flatMap(Int.init) ?? 8

    func validate() throws {
        guard (1...100).contains(self.poolSize) else { throw ValidationError("--db-pool-size must be between 1 and 100") }
    }

    var level: Logger.Level {
        get throws {
            guard let level = Logger.Level(rawValue: self.logLevel.lowercased()) else {
                throw ValidationError("--log-level must be one of: \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return level
        }
    }

    func logger() throws -> Logger {
        var logger = Logger(label: "soom")
        logger.logLevel = try self.level
        return logger
    }

    /// `DATABASE_URL` when set; otherwise the embedded cluster under the data directory. With
    /// `besideServer`, a cluster a running server started is used as it is (and left running);
    /// otherwise one left running is restarted, as `soom serve` needs.
    @discardableResult
    func withDatabase<T>(besideServer: Bool = false, _ body: (DatabaseConfiguration) async throws -> T) async throws -> T {
        if let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty {
            var configuration = try DatabaseConfiguration(url: url)
            configuration.maximumConnections = self.poolSize
            return try await body(configuration)
        }
        let embedded = try EmbeddedPostgres(
            dataDirectory: URL(fileURLWithPath: self.dataDirectory).appendingPathComponent("postgres"), logger: try self.logger())
        if besideServer, var configuration = await embedded.running() {
            configuration.maximumConnections = self.poolSize
            return try await body(configuration)
        }
        var configuration = try await embedded.start()
        configuration.maximumConnections = self.poolSize
        do {
            let result = try await body(configuration)
            try await embedded.stop()
            return result
        } catch {
            try? await embedded.stop()
            throw error
        }
    }
}

extension Soom {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the HTTP server (the default command).",
            discussion: """
                With DATABASE_URL (postgres://user:password@host:port/database) it uses that PostgreSQL; without it, \
                it runs a private PostgreSQL cluster under <data-directory>/postgres, created on first run and stopped \
                with the server. Pending migrations are applied before serving. SIGINT or SIGTERM stops it gracefully.
                """)

        @Option(name: .long, help: "Address to listen on (env SOOM_HOSTNAME).")
        var hostname: String = ProcessInfo.processInfo.environment["SOOM_HOSTNAME"] ?? "127.0.0.1"

        @Option(name: .long, help: "Port to listen on (env SOOM_PORT).")
        var port: Int = ProcessInfo.processInfo.environment["SOOM_PORT"].flatMap(Int.init) ?? 8080

        @Option(
            name: .customLong("shutdown-timeout"),
            help: "Seconds in-flight requests get to finish after SIGTERM before they are cancelled (env SOOM_SHUTDOWN_TIMEOUT).")
        var shutdownTimeout: Int = ProcessInfo.processInfo.environment["SOOM_SHUTDOWN_TIMEOUT"].flatMap(Int.init) ?? 20

        @Option(
            name: .customLong("session-cache"),
            help: """
                Seconds a checked session may be answered from memory, 0-300; 0 reads every request's session from the \
                database (env SOOM_SESSION_CACHE). Sign-out, withdrawal and profile changes reach every instance at once \
                through PostgreSQL notifications; this is only the upper bound.
                """)
        var sessionCache: Int = ProcessInfo.processInfo.environment["SOOM_SESSION_CACHE"].flatMap(Int.init) ?? 10

        @Option(
            name: .customLong("feed-cache"),
            help: """
                Seconds what readers share may be answered from memory, 0-1 (env SOOM_FEED_CACHE); 0 reads every \
                page: single cards as everyone sees them, which cards the first pages of the feeds hold, and the \
                nearby feed's chunks. Likes, blocks and follows are the reader's current ones (see --marks-cache), and \
                this instance's own changes show at once; only other instances' new cards, counts and names may be \
                this old.
                """)
        var feedCache: Double =
            ProcessInfo.processInfo.environment["SOOM_FEED_CACHE"].flatMap(Double.init) ?? AppConfiguration.defaultFeedCacheLifetime

        @Option(
            name: .customLong("marks-cache"),
            help: """
                Seconds a reader's book of likes (every card they liked, up to 1024 likes; a reader with more is read \
                every time) may be answered from memory, 0-300; 0 reads it with every page (env SOOM_MARKS_CACHE). A \
                like, a block or a report reaches every instance at once through PostgreSQL notifications; this is \
                only the upper bound.
                """)
        var marksCache: Int = ProcessInfo.processInfo.environment["SOOM_MARKS_CACHE"].flatMap(Int.init) ?? 60

        @Option(
            name: .customLong("idle-timeout"),
            help: """
                Seconds a connection may stay open without a whole request head or body part arriving, between \
                keep-alive requests or while one trickles in, 1-3600 (env SOOM_IDLE_TIMEOUT).
                """)
        var idleTimeout: Int = ProcessInfo.processInfo.environment["SOOM_IDLE_TIMEOUT"].flatMap(Int.init) ?? 60

        @Option(
            name: .customLong("header-timeout"),
            help: "Seconds a new connection has to send its first request head, 1-600 (env SOOM_HEADER_TIMEOUT).")
        var headerTimeout: Int = ProcessInfo.processInfo.environment["SOOM_HEADER_TIMEOUT"].flatMap(Int.init) ?? 10

        @Option(
            name: .customLong("connections-per-address"),
            help: "Open connections one client address may hold, 0 for no bound; off behind --trust-forwarded-for (env SOOM_CONNECTIONS_PER_ADDRESS)."
        )
        var connectionsPerAddress: Int = ProcessInfo.processInfo.environment["SOOM_CONNECTIONS_PER_ADDRESS"].flatMap(Int.init) ?? 128

        @OptionGroup var options: DatabaseOptions
        @OptionGroup var safety: SafetyOptions

        func validate() throws {
            guard (1...600).contains(self.shutdownTimeout) else { throw ValidationError("--shutdown-timeout must be 1-600 seconds") }
            guard (1...3600).contains(self.idleTimeout) else { throw ValidationError("--idle-timeout must be 1-3600 seconds") }
            guard (1...600).contains(self.headerTimeout) else { throw ValidationError("--header-timeout must be 1-600 seconds") }
            guard (0...100_000).contains(self.connectionsPerAddress) else { throw ValidationError("--connections-per-address must be 0-100000") }
            guard (0...300).contains(self.sessionCache) else { throw ValidationError("--session-cache must be 0-300 seconds") }
            guard (0...300).contains(self.marksCache) else { throw ValidationError("--marks-cache must be 0-300 seconds") }
            guard (0...FeedPageCache.maximumLifetime).contains(self.feedCache) else { throw ValidationError("--feed-cache must be 0-1 seconds") }
        }

        func run() async throws {
            self.options.logFormat.bootstrap()
            SoomMetrics.bootstrap()
            let logger = try self.options.logger()
            try await self.options.withDatabase { database in
                var configuration = AppConfiguration(
                    hostname: self.hostname, port: self.port, database: database, logLevel: try self.options.level,
                    sessionCacheLifetime: Double(self.sessionCache), feedCacheLifetime: self.feedCache,
                    marksCacheLifetime: Double(self.marksCache), moderation: try self.safety.moderation(),
                    rateLimits: try self.safety.rateLimits(),
                    trustForwardedFor: self.safety.trustForwardedFor,
                    // From the environment only: a command-line argument would show in `ps`.
                    metricsToken: ProcessInfo.processInfo.environment["SOOM_METRICS_TOKEN"].flatMap { $0.isEmpty ? nil : $0 })
                configuration.idleTimeout = .seconds(self.idleTimeout)
                do {
                    configuration.push = try PushConfiguration(environment: ProcessInfo.processInfo.environment)
                } catch let invalid as PushConfiguration.Invalid {
                    throw ValidationError(invalid.description)
                }
                configuration.requestHeadTimeout = .seconds(self.headerTimeout)
                configuration.connectionsPerAddress = self.connectionsPerAddress == 0 ? nil : self.connectionsPerAddress
                // SIGTERM or SIGINT: stop accepting, let in-flight requests finish for at most
                // --shutdown-timeout seconds, then cancel what is left; the pool closes, and the
                // embedded database (if any) is stopped by withDatabase.
                var group = ServiceGroupConfiguration(
                    services: [try buildApplication(configuration)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
                group.maximumGracefulShutdownDuration = .seconds(self.shutdownTimeout)
                group.maximumCancellationDuration = .seconds(5)
                try await ServiceGroup(configuration: group).run()
            }
        }
    }

    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apply pending SQL migrations and exit.",
            discussion: """
                Uses DATABASE_URL, or the embedded cluster when it is not set. Safe to run while servers are running \
                and from several places at once: migrations are serialised with an advisory lock. Fails, changing \
                nothing, when an applied migration's file has changed.
                """)

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            self.options.logFormat.bootstrap()
            let logger = try self.options.logger()
            try await self.options.withDatabase { database in
                try await DatabaseMigration.run(database, logger: logger)
            }
        }
    }
}
