import Foundation
import NIOSSL
import PostgresNIO

/// Where the database is and how to reach it, parsed from `DATABASE_URL`
/// (`postgres://user:password@host:port/database?sslmode=disable|prefer|require`).
public struct DatabaseConfiguration: Sendable, Equatable, CustomStringConvertible {
    public enum TLSMode: String, Sendable { case disable, prefer, require }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// The connections each server instance keeps open (a fixed pool; see `clientConfiguration`).
    public var maximumConnections: Int = 8
    /// When set, PostgreSQL itself ends any statement that runs longer (`statement_timeout`, which
    /// counts lock waits too; `lock_timeout` is the same, so a write stuck behind a lock gets the
    /// whole of it), and a transaction left idle (`idle_in_transaction_session_timeout`): a server
    /// sets it just below its request deadline, so a request that outlives the deadline has no
    /// effect. Tools (migrate, seed, admin) leave it nil.
    public var statementTimeout: Duration?

    public init(host: String, port: Int, username: String, password: String?, database: String, tls: TLSMode = .disable) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.tls = tls
    }

    /// Parses a `postgres://` or `postgresql://` URL.
    /// - Throws: `ConfigurationError` naming what is wrong (never echoing the password).
    public init(url text: String) throws {
        guard let components = URLComponents(string: text), let scheme = components.scheme,
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw ConfigurationError("DATABASE_URL must look like postgres://user:password@host:port/database")
        }
        guard let host = components.host, !host.isEmpty else { throw ConfigurationError("DATABASE_URL has no host") }
        guard let user = components.percentEncodedUser.flatMap({ $0.removingPercentEncoding }), !user.isEmpty else {
            throw ConfigurationError("DATABASE_URL has no user name")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        let sslmode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "disable"
        guard let tls = TLSMode(rawValue: sslmode) else {
            throw ConfigurationError("DATABASE_URL sslmode must be disable, prefer or require")
        }
        self.init(
            host: host, port: components.port ?? 5432, username: user,
            password: components.percentEncodedPassword?.removingPercentEncoding,
            database: database.isEmpty ? user : database, tls: tls)
    }

    /// The PostgresNIO pool configuration: short connect timeout so an outage is noticed fast.
    public var clientConfiguration: PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS =
            switch self.tls {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        var configuration = PostgresClient.Configuration(
            host: self.host, port: self.port, username: self.username, password: self.password, database: self.database, tls: tls)
        configuration.options.connectTimeout = .seconds(3)
        configuration.options.maximumConnections = self.maximumConnections
        // No minimum. A fixed pool (minimum = maximum) saved a timer per returned connection
        // (about a tenth of the server's CPU on a busy two-core machine), but PostgresNIO 1.33's
        // pool then crashes the process: a connection the server closes (a restart, a terminated
        // backend, `idle_in_transaction_session_timeout`) stops counting as active before its
        // replacement starts, and a lease that finds no idle connection in that window fails the
        // precondition `minimumConcurrentConnections <= active` (seen in a CI run). Connections
        // are opened on demand and closed after the pool's idle timeout; keep-alive pings stay off.
        configuration.options.minimumConnections = 0
        configuration.options.keepAliveBehavior = nil
        // Every statement here is a short, index-driven read or write of a few dozen rows, and two
        // planner features meant for big queries cost more than they save:
        // - JIT compilation pays off for long analytical queries; for a statement whose estimate
        //   crosses `jit_above_cost` (a generic plan with an unknown LIMIT, say) it costs a quarter
        //   of a second each time.
        // - Memoize builds (and zeroes) a hash table sized for the planner's guess at the number of
        //   distinct authors on every execution: 40 % of a feed page's time in PostgreSQL.
        configuration.options.additionalStartupParameters = [("jit", "off"), ("enable_memoize", "off")]
        if let timeout = self.statementTimeout {
            let milliseconds = max(1, Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000))
            configuration.options.additionalStartupParameters += [
                ("statement_timeout", "\(milliseconds)"), ("lock_timeout", "\(milliseconds)"),
                ("idle_in_transaction_session_timeout", "\(milliseconds)"),
            ]
        }
        return configuration
    }

    /// Safe to log: no password.
    public var description: String { "postgres://\(self.username)@\(self.host):\(self.port)/\(self.database)" }
}

/// Configuration that cannot work; the message says what to fix.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
