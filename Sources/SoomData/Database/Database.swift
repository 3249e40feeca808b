import Logging
import Metrics
import NIOCore
import NIOPosix
import PostgresNIO
import SoomDomain
import _ConnectionPoolModule

/// The application's handle on PostgreSQL: the `PostgresClient` pool plus the rules every query
/// follows here — a deadline (so an outage fails requests fast instead of queueing them, and a
/// request that cannot finish has no effect: `DatabaseTimeout`), and connection failures
/// reported as `DatabaseUnavailable`. Callers see both as domain errors (`SoomError.databaseTimeout`,
/// `.databaseUnavailable`), and a data exception as `.unstorableValue`: see `withDeadline`.
///
/// A deadline alone would not stop a statement already sent: PostgreSQL would finish it, and a
/// transaction could commit after its client was told `503`. So the server's pool also has
/// PostgreSQL end statements and lock waits just before the deadline
/// (`DatabaseConfiguration.statementTimeout`), and a transaction commits only while its deadline
/// has not passed (`OperationGate`): once the deadline fires it rolls back, and once it is committing
/// the deadline waits for the commit's answer.
public struct Database: Sendable {
    /// The contract's: a request the server cannot finish within 10 seconds is `503 timeout`.
    public static let defaultDeadline: Duration = .seconds(10)

    public let client: PostgresClient
    public let logger: Logger
    /// How long one operation (waiting for a connection included) may take.
    public let deadline: Duration
    /// How long an operation may wait for a pooled connection before it is `DatabaseUnavailable`
    /// (an outage fails requests fast instead of queueing them until the deadline).
    public let connectionPatience: Duration

    public init(
        client: PostgresClient, logger: Logger, deadline: Duration = Database.defaultDeadline, connectionPatience: Duration = .seconds(5)
    ) {
        self.client = client
        self.logger = logger
        self.deadline = deadline
        self.connectionPatience = connectionPatience
    }

    /// Runs `query` and returns all its rows.
    public func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await self.withDeadline(.statement, watchingConnection: true) {
            try await self.client.withConnection { connection in
                OperationGate.current?.connected()
                return try await connection.query(query, logger: self.logger).collect()
            }
        }
    }

    /// Runs a prepared statement (parsed and planned once per connection) and returns its rows.
    public func rows<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [Statement.Row] where Statement.Row: Sendable {
        try await self.withDeadline(.prepared, watchingConnection: true) {
            try await self.client.withConnection { connection in
                OperationGate.current?.connected()
                return try await Self.collect(connection.execute(statement, logger: self.logger))
            }
        }
    }

    /// All the rows of a prepared statement's result, as `PostgresRowSequence.collect()` gives
    /// them for plain queries (a mapped sequence has no `collect()`). Also for statements run on a
    /// transaction's connection.
    static func collect<Rows: AsyncSequence>(_ rows: Rows) async throws -> [Rows.Element] {
        var collected: [Rows.Element] = []
        for try await row in rows { collected.append(row) }
        return collected
    }

    /// The first row of a prepared statement, if any.
    public func first<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> Statement.Row? where Statement.Row: Sendable {
        try await self.rows(statement).first
    }

    /// Runs a statement whose rows are not needed.
    public func execute(_ query: PostgresQuery) async throws {
        _ = try await self.rows(query)
    }

    /// Runs `body` in a transaction on one connection: committed when it returns, rolled back when it throws.
    ///
    /// PostgresNIO's `withTransaction` runs `BEGIN`, the body and `COMMIT` (or `ROLLBACK`). Past the
    /// request's deadline the client was told `503`, so nothing may commit: the body's last step is
    /// the gate's check, which throws and so rolls back. PostgresNIO wraps what went wrong in a
    /// `PostgresTransactionError`; callers see the error itself, as each repository expects
    /// (a constraint's `PSQLError`, a deadlock for `withDeadline` to retry).
    public func transaction<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        try await self.withDeadline(.transaction, watchingConnection: true) {
            try await self.client.withConnection { connection in
                OperationGate.current?.connected()
                do {
                    return try await connection.withTransaction(logger: self.logger) { connection in
                        let result = try await body(connection)
                        if let gate = OperationGate.current, !gate.enterCommit() { throw DatabaseTimeout() }
                        return result
                    }
                } catch let error as PostgresTransactionError {
                    if let rollbackError = error.rollbackError {
                        self.logger.error("rollback failed", metadata: ["error": "\(String(reflecting: rollbackError))"])
                    }
                    throw error.closureError ?? error.commitError ?? error.beginError ?? error
                }
            }
        }
    }

    /// Whether the database answers a trivial query within `timeout`.
    public func isReachable(timeout: Duration) async -> Bool {
        do {
            _ = try await Self.race(timeout) { try await self.client.query("SELECT 1", logger: self.logger).collect() }
            return true
        } catch {
            return false
        }
    }

    /// Runs `operation` (a statement, or a whole transaction) within the deadline. A deadlock or
    /// serialization failure aborts it before anything is committed, so it is run again, up to
    /// three times in all: writers lock in a documented order, but PostgreSQL's foreign-key checks
    /// take locks of their own, and a rare cycle among them must not reach a client as a 5xx.
    ///
    /// Metrics: `soom_db_operations_in_flight` (running or waiting for a pooled connection) and
    /// `soom_db_operation_duration` by kind and outcome, the deadline's wait included.
    /// With `watchingConnection`, the operation reports when it has its pooled connection
    /// (`OperationGate.connected()`), and one still waiting after `connectionPatience` is
    /// `DatabaseUnavailable`; other operations (a migration) have only the deadline.
    ///
    /// The data layer's boundary for failures: a timeout, an unreachable database (a lost
    /// connection, or a pool that stopped trying after failing to connect for a minute) and a data
    /// exception (SQLSTATE class 22, a value from the request) leave as `SoomError`s; other
    /// PostgreSQL errors leave as they are (repositories read their constraint names).
    func withDeadline<T: Sendable>(
        _ kind: OperationKind = .statement, watchingConnection: Bool = false, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let logger = self.logger
        let metrics = OperationMetrics.shared
        metrics.inFlight.increment()
        let started = ContinuousClock.now
        var outcome = OperationMetrics.Outcome.error
        defer {
            metrics.inFlight.decrement()
            metrics.duration(kind, outcome).recordNanoseconds(Self.nanoseconds(started.duration(to: .now)))
        }
        do {
            let result = try await Self.race(
                self.deadline, gate: watchingConnection ? OperationGate() : nil, connectionPatience: self.connectionPatience
            ) {
                var attempt = 1
                while true {
                    do {
                        return try await operation()
                    } catch let error as PSQLError where error.isTransientConflict && attempt < 3 {
                        attempt += 1
                        logger.notice("retrying after a transient conflict", metadata: ["error": "\(loggableDescription(of: error))"])
                    }
                }
            }
            outcome = .ok
            return result
        } catch let error as PSQLError where error.isConnectionFailure {
            outcome = .unavailable
            throw SoomError.databaseUnavailable(reason: "\(error.code)")
        } catch let error as PSQLError where error.isTimeout {
            outcome = .timeout
            throw SoomError.databaseTimeout
        } catch is DatabaseTimeout {
            outcome = .timeout
            throw SoomError.databaseTimeout
        } catch let error as ConnectionPoolError where error == .connectionCreationCircuitBreakerTripped {
            // The pool failed to open a connection for a minute and now fails every request at
            // once until one opens: an outage like any other, not a defect.
            outcome = .unavailable
            throw SoomError.databaseUnavailable(reason: "the pool's circuit breaker is open")
        } catch let error as DatabaseUnavailable {
            outcome = .unavailable
            throw SoomError.databaseUnavailable(reason: error.reason)
        } catch let error as SoomError where error.kind == .timeout || error.kind == .unavailable {
            // Already translated by an operation run inside this one.
            outcome = error.kind == .timeout ? .timeout : .unavailable
            throw error
        } catch let error as PSQLError {
            if let vanished = error.vanishedReference { throw vanished }
            if let state = error.serverInfo?[.sqlState], state.hasPrefix("22") { throw SoomError.unstorableValue(sqlState: state) }
            throw error
        }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }

    /// What `withDeadline` runs, for metrics.
    enum OperationKind: String, Sendable, CaseIterable {
        case statement, prepared, transaction
    }

    /// The operation's result, or `DatabaseTimeout` once `timeout` has passed.
    ///
    /// The operation runs in a task of its own and is cancelled at the deadline, but the caller does
    /// not wait for it to wind down: a connection request the pool cannot cancel must not hold a
    /// request (or a graceful shutdown) hostage. A task group would wait for it.
    ///
    /// With a `gate`, an operation still waiting for a pooled connection after
    /// `connectionPatience` is `DatabaseUnavailable` (an outage fails requests fast), and the
    /// deadline does not interrupt a commit under way: it waits for its answer (a few more
    /// seconds at most, then `DatabaseUnavailable`).
    static func race<T: Sendable>(
        _ timeout: Duration, gate: OperationGate? = nil, connectionPatience: Duration = .seconds(5),
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let outcome = RaceOutcome<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                outcome.install(continuation)
                let work = Task {
                    do {
                        outcome.finish(.success(try await OperationGate.$current.withValue(gate) { try await operation() }))
                    } catch {
                        outcome.finish(.failure(error))
                    }
                }
                // Deadlines are entries in one coarse timer's table (`DeadlineWheel`): arming and
                // cancelling them wakes no event loop (but the first after an idle pause).
                let wheel = DeadlineWheel.shared
                let patience = min(timeout, connectionPatience)
                let noConnection = gate.map { gate in
                    wheel.schedule(in: .nanoseconds(Int64(patience.nanoseconds))) {
                        if gate.expireWhileWaiting() {
                            outcome.finish(.failure(DatabaseUnavailable(reason: "no connection within \(patience)")))
                        }
                    }
                }
                let deadline = wheel.schedule(in: .nanoseconds(Int64(timeout.nanoseconds))) {
                    if gate?.expire() ?? true {
                        outcome.finish(.failure(DatabaseTimeout()))
                    } else {
                        _ = wheel.schedule(in: .seconds(5)) {
                            outcome.finish(.failure(DatabaseUnavailable(reason: "no answer to a commit")))
                        }
                    }
                }
                outcome.onFinish {
                    work.cancel()
                    if let noConnection { wheel.cancel(noConnection) }
                    wheel.cancel(deadline)
                }
            }
        } onCancel: {
            outcome.finish(.failure(CancellationError()))
        }
    }
}
