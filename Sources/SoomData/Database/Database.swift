import Logging
import PostgresNIO

/// The application's handle on PostgreSQL: the `PostgresClient` pool plus the rules every query
/// follows here — a deadline (so an outage fails requests fast instead of queueing them), and
/// connection failures reported as `DatabaseUnavailable`.
public struct Database: Sendable {
    public let client: PostgresClient
    public let logger: Logger
    /// How long one operation (waiting for a connection included) may take.
    public let deadline: Duration

    public init(client: PostgresClient, logger: Logger, deadline: Duration = .seconds(5)) {
        self.client = client
        self.logger = logger
        self.deadline = deadline
    }

    /// Runs `query` and returns all its rows.
    public func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await self.withDeadline {
            try await self.client.query(query, logger: self.logger).collect()
        }
    }

    /// Runs a statement whose rows are not needed.
    public func execute(_ query: PostgresQuery) async throws {
        _ = try await self.rows(query)
    }

    /// Runs `body` in a transaction on one connection: committed when it returns, rolled back when it throws.
    public func transaction<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        try await self.withDeadline {
            try await self.client.withConnection { connection in
                try await connection.query("BEGIN", logger: self.logger)
                let result: Result
                do {
                    result = try await body(connection)
                } catch {
                    do {
                        try await connection.query("ROLLBACK", logger: self.logger)
                    } catch let rollbackError {
                        self.logger.error("rollback failed", metadata: ["error": "\(String(reflecting: rollbackError))"])
                    }
                    throw error
                }
                try await connection.query("COMMIT", logger: self.logger)
                return result
            }
        }
    }

    /// Whether the database answers a trivial query within `timeout`.
    public func isReachable(timeout: Duration = .seconds(2)) async -> Bool {
        do {
            _ = try await Self.race(timeout) { try await self.client.query("SELECT 1", logger: self.logger).collect() }
            return true
        } catch {
            return false
        }
    }

    func withDeadline<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            return try await Self.race(self.deadline, operation)
        } catch let error as PSQLError where error.isConnectionFailure {
            throw DatabaseUnavailable(reason: "\(error.code)")
        }
    }

    /// The operation's result, or `DatabaseUnavailable` once `timeout` has passed (the operation is cancelled).
    static func race<T: Sendable>(_ timeout: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw DatabaseUnavailable(reason: "no answer within \(timeout)")
            }
            return value
        }
    }
}

/// PostgreSQL could not be reached or did not answer in time. Requests fail with `503`.
public struct DatabaseUnavailable: Error, CustomStringConvertible, Sendable {
    public let reason: String
    public var description: String { "database unavailable: \(self.reason)" }
}

extension PSQLError {
    /// Failures of the connection rather than of the statement: the database is down, restarting or unreachable.
    var isConnectionFailure: Bool {
        switch self.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown, .sslUnsupported,
            .failedToAddSSLHandler:
            return true
        case .server:
            // Class 08 (connection exception), 57P01-03 (shutdown, crash, starting up), 53300 (too many connections).
            let state = self.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(state)
        default:
            return false
        }
    }

    /// The SQLSTATE and constraint of a server error (e.g. `23505` and `accounts_nickname_key_unique`).
    public var uniqueViolationConstraint: String? {
        guard self.code == .server, self.serverInfo?[.sqlState] == "23505" else { return nil }
        return self.serverInfo?[.constraintName]
    }
}
