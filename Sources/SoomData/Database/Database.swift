import Logging
import Metrics
import PostgresNIO
import NIOCore
import NIOPosix
import SoomDomain
import Synchronization

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

    public init(client: PostgresClient, logger: Logger, deadline: Duration = Database.defaultDeadline) {
        self.client = client
        self.logger = logger
        self.deadline = deadline
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
    public func transaction<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        try await self.withDeadline(.transaction, watchingConnection: true) {
            try await self.client.withConnection { connection in
                OperationGate.current?.connected()
                try await connection.query("BEGIN", logger: self.logger)
                let result: Result
                do {
                    result = try await body(connection)
                    // Past the deadline the client was told 503: nothing may commit.
                    if let gate = OperationGate.current, !gate.enterCommit() { throw DatabaseTimeout() }
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
    /// The data layer's boundary for failures: a timeout, an unreachable database and a data
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
            let result = try await Self.race(self.deadline, gate: watchingConnection ? OperationGate() : nil) {
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

    /// How long an operation may wait for a pooled connection before it is `DatabaseUnavailable`.
    static let connectionPatience: Duration = .seconds(5)

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
        _ timeout: Duration, gate: OperationGate? = nil, _ operation: @escaping @Sendable () async throws -> T
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
                // The deadline is a timer on an event loop: far cheaper than a sleeping task per query.
                let loop = MultiThreadedEventLoopGroup.singleton.any()
                let patience = min(timeout, Self.connectionPatience)
                let noConnection = loop.scheduleTask(in: .nanoseconds(Int64(patience.nanoseconds))) {
                    if gate?.expireWhileWaiting() ?? false {
                        outcome.finish(.failure(DatabaseUnavailable(reason: "no connection within \(patience)")))
                    }
                }
                let deadline = loop.scheduleTask(in: .nanoseconds(Int64(timeout.nanoseconds))) {
                    if gate?.expire() ?? true {
                        outcome.finish(.failure(DatabaseTimeout()))
                    } else {
                        loop.scheduleTask(in: .seconds(5)) {
                            outcome.finish(.failure(DatabaseUnavailable(reason: "no answer to a commit")))
                        }
                    }
                }
                outcome.onFinish {
                    work.cancel()
                    noConnection.cancel()
                    deadline.cancel()
                }
            }
        } onCancel: {
            outcome.finish(.failure(CancellationError()))
        }
    }
}

/// The first of several results wins; the continuation is resumed exactly once.
private final class RaceOutcome<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var result: Result<T, any Error>?
        var cleanup: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        let early = self.state.withLock { state -> Result<T, any Error>? in
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let finished = self.state.withLock { state -> Bool in
            if state.result != nil { return true }
            state.cleanup = cleanup
            return false
        }
        if finished { cleanup() }
    }

    func finish(_ result: Result<T, any Error>) {
        let (continuation, cleanup) = self.state.withLock { state -> (CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?) in
            guard state.result == nil else { return (nil, nil) }
            state.result = result
            defer {
                state.continuation = nil
                state.cleanup = nil
            }
            return (state.continuation, state.cleanup)
        }
        continuation?.resume(with: result)
        cleanup?()
    }
}

/// PostgreSQL could not be reached. `withDeadline` reports it as `SoomError.databaseUnavailable`
/// (`503 database_unavailable`).
public struct DatabaseUnavailable: Error, CustomStringConvertible, Sendable {
    public let reason: String
    public var description: String { "database unavailable: \(self.reason)" }
}

/// The operation did not finish within its deadline (or PostgreSQL ended a statement or lock wait
/// at the server's statement timeout), and had no effect. `withDeadline` reports it as
/// `SoomError.databaseTimeout` (`503 timeout`).
public struct DatabaseTimeout: Error, CustomStringConvertible, Sendable {
    public init() {}
    public var description: String { "database operation timed out" }
}

/// Where an operation under a deadline stands: waiting for a pooled connection, running,
/// committing, or expired. Decides, once, between a transaction's commit and its deadline.
final class OperationGate: Sendable {
    @TaskLocal static var current: OperationGate?

    private enum Phase { case waiting, running, committing, expired }
    private let phase = Mutex(Phase.waiting)

    /// The operation has its connection (a retry after a conflict keeps it running).
    func connected() {
        self.phase.withLock { phase in
            if phase == .waiting { phase = .running }
        }
    }

    /// Whether the operation may be ended as one that never got a connection.
    func expireWhileWaiting() -> Bool {
        self.phase.withLock { phase in
            guard phase == .waiting else { return false }
            phase = .expired
            return true
        }
    }

    /// Whether the transaction may commit: false once the deadline has passed.
    func enterCommit() -> Bool {
        self.phase.withLock { phase in
            guard phase == .running || phase == .waiting else { return false }
            phase = .committing
            return true
        }
    }

    /// Whether the deadline may end the operation: false once its commit is under way.
    func expire() -> Bool {
        self.phase.withLock { phase in
            guard phase == .running || phase == .waiting else { return phase == .expired }
            phase = .expired
            return true
        }
    }
}

extension PSQLError {
    /// PostgreSQL ended the statement at `statement_timeout` (57014), a lock wait at `lock_timeout`
    /// (55P03), or the transaction at `idle_in_transaction_session_timeout` (25P03).
    var isTimeout: Bool {
        self.code == .server && ["57014", "55P03", "25P03"].contains(self.serverInfo?[.sqlState] ?? "")
    }

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

    /// What a foreign-key violation (23503) means when the row it names was deleted while the
    /// request ran (its checks had found it a moment before):
    /// - a column holding the *caller's* account: the account withdrew after its session was
    ///   checked (perhaps from the session cache), so `401 unauthorized`, as if the token had been refused;
    /// - a column holding the card acted on: the card was deleted meanwhile, so `404`, as a moment later.
    /// Every key in these sets cascades on delete (a test checks the schema), so the violation can
    /// only come from the inserting side. Any other violation is a defect and stays a 500.
    var vanishedReference: SoomError? {
        guard self.code == .server, self.serverInfo?[.sqlState] == "23503", let constraint = self.serverInfo?[.constraintName] else { return nil }
        if Self.callerAccountReferences.contains(constraint) { return .unauthorized }
        if Self.cardReferences.contains(constraint) { return .cardNotFound }
        return nil
    }

    /// Every foreign key to `accounts` is in exactly one of these two sets (a test checks this
    /// against the schema): the columns a request fills with its caller's id …
    static let callerAccountReferences: Set<String> = [
        "images_owner_id_fkey", "sessions_account_id_fkey", "transfer_codes_account_id_fkey", "cards_author_id_fkey",
        "likes_account_id_fkey", "idempotency_keys_account_id_fkey", "favorite_tags_account_id_fkey", "follows_follower_id_fkey",
        "blocks_blocker_id_fkey", "reports_reporter_id_fkey", "notifications_actor_id_fkey",
    ]
    /// … and those that name someone else (left alone: their writers check the target themselves).
    static let targetAccountReferences: Set<String> = [
        "follows_followee_id_fkey", "blocks_blocked_id_fkey", "notifications_recipient_id_fkey",
    ]
    /// The foreign keys to `cards` but `card_tags_card_id_fkey`, which guards tag counts against
    /// a card's deletion at commit and must never fire.
    static let cardReferences: Set<String> = [
        "likes_card_id_fkey", "notifications_card_id_fkey", "tag_notification_outbox_card_id_fkey", "reports_card_id_fkey",
    ]

    /// A deadlock (`40P01`) or serialization failure (`40001`): nothing was committed, and the same
    /// work may succeed when run again.
    var isTransientConflict: Bool {
        guard self.code == .server, let state = self.serverInfo?[.sqlState] else { return false }
        return state == "40P01" || state == "40001"
    }

    /// The SQLSTATE and constraint of a server error (e.g. `23505` and `accounts_nickname_key_unique`).
    public var uniqueViolationConstraint: String? {
        guard self.code == .server, self.serverInfo?[.sqlState] == "23505" else { return nil }
        return self.serverInfo?[.constraintName]
    }
}

extension Duration {
    /// The whole duration in nanoseconds (saturating).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = self.components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : product + attoseconds / 1_000_000_000
    }
}
