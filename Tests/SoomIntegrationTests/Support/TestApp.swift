import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PostgresNIO
import SoomApp
import SoomData
import SoomDomain
import Synchronization
import Testing

@testable import SoomHTTP

/// The `/metrics` token test apps run with (`withTestApp(metricsToken: nil)` switches `/metrics` off).
let testMetricsToken = "test-metrics-token-0123456789abcdef"

extension ModerationPolicy {
    /// The default policy, but every report counts at once: test accounts are seconds old.
    static let immediate = try! ModerationPolicy(
        reportThreshold: ModerationPolicy.default.reportThreshold, restrictionDays: ModerationPolicy.default.restrictionDays, reporterMinimumAge: 0)
}

/// Runs `test` against the real application (the same `buildApplication` as production) on a
/// real HTTP port, backed by a fresh database of its own that is dropped afterwards.
/// `backgroundJobs: false` leaves the periodic jobs out, for tests that run one by hand and must
/// see its queue before it does. Rate limits are off unless a test passes its own.
/// At most `TestAppSlots`' limit of apps run at once; the rest wait their turn.
func withTestApp(
    tagRankingCacheLifetime: Double = 0, feedCacheLifetime: Double = AppConfiguration.defaultFeedCacheLifetime, backgroundJobs: Bool = true,
    moderation: ModerationPolicy = .immediate, rateLimits: RateLimits? = nil,
    logLevel: Logger.Level = .warning, metricsToken: String? = testMetricsToken, requestDeadline: Duration = Database.defaultDeadline,
    adjust: @escaping @Sendable (inout AppConfiguration) -> Void = { _ in },
    _ test: @escaping @Sendable (any TestClientProtocol, TestDatabase) async throws -> Void
) async throws {
    try await TestAppSlots.withSlot {
        do {
            try await runTestApp(
                AppOptions(
                    tagRankingCacheLifetime: tagRankingCacheLifetime, feedCacheLifetime: feedCacheLifetime, backgroundJobs: backgroundJobs,
                    moderation: moderation, rateLimits: rateLimits,
                    logLevel: logLevel, metricsToken: metricsToken, requestDeadline: requestDeadline, adjust: adjust),
                test)
        } catch let error as PSQLError {
            // PSQLError's description hides the server's message; a failing test should show it.
            throw TestDatabaseError(detail: String(reflecting: error))
        }
    }
}

private struct AppOptions {
    let tagRankingCacheLifetime: Double
    let feedCacheLifetime: Double
    let backgroundJobs: Bool
    let moderation: ModerationPolicy
    let rateLimits: RateLimits?
    let logLevel: Logger.Level
    let metricsToken: String?
    let requestDeadline: Duration
    let adjust: @Sendable (inout AppConfiguration) -> Void
}

private func runTestApp(_ options: AppOptions, _ test: @escaping @Sendable (any TestClientProtocol, TestDatabase) async throws -> Void) async throws {
    // Many tests run at once against one server: each app gets a small pool.
    try await withFreshDatabase(maximumConnections: 6) { configuration in
        var appConfiguration = AppConfiguration(
            hostname: "127.0.0.1", port: 0, database: configuration, logLevel: options.logLevel, migrateOnStart: false,
            backgroundJobs: options.backgroundJobs,
            // Tests read the top ten right after changing it: no cache (its bound is tested on its own).
            tagRankingCacheLifetime: options.tagRankingCacheLifetime, feedCacheLifetime: options.feedCacheLifetime,
            moderation: options.moderation, rateLimits: options.rateLimits, metricsToken: options.metricsToken)
        appConfiguration.requestDeadline = options.requestDeadline
        options.adjust(&appConfiguration)
        let app = try buildApplication(appConfiguration)
        try await runBounded { testFinished in
            try await app.test(.ahc(.http)) { client in
                defer { testFinished() }
                try await test(client, TestDatabase(configuration: configuration))
            }
        }
    }
}

/// Runs `body` with a fresh database of its own (migrated, from the template), dropped afterwards
/// whether `body` returns or throws.
func withFreshDatabase(
    maximumConnections: Int? = nil, _ body: (DatabaseConfiguration) async throws -> Void
) async throws {
    var configuration = try await TestPostgres.shared.makeDatabase()
    if let maximumConnections { configuration.maximumConnections = maximumConnections }
    do {
        try await body(configuration)
    } catch {
        try? await TestPostgres.shared.drop(configuration)
        throw error
    }
    try await TestPostgres.shared.drop(configuration)
}

/// Runs `test` against two instances of the application sharing one fresh database, as behind a
/// load balancer, each with the given session-cache, feed-cache and marks-cache lifetimes.
func withTwoTestApps(
    sessionCacheLifetime: Double, feedCacheLifetime: Double = 0, marksCacheLifetime: Double = 60,
    _ test: @escaping @Sendable (any TestClientProtocol, any TestClientProtocol, TestDatabase) async throws -> Void
) async throws {
    try await TestAppSlots.withSlot {
        try await withFreshDatabase(maximumConnections: 4) { configuration in
            func app() throws -> some ApplicationProtocol {
                try buildApplication(
                    AppConfiguration(
                        hostname: "127.0.0.1", port: 0, database: configuration, logLevel: .warning, migrateOnStart: false,
                        tagRankingCacheLifetime: 0, sessionCacheLifetime: sessionCacheLifetime, feedCacheLifetime: feedCacheLifetime,
                        marksCacheLifetime: marksCacheLifetime, rateLimits: nil))
            }
            let (first, second) = (try app(), try app())
            try await first.test(.ahc(.http)) { one in
                try await second.test(.ahc(.http)) { two in
                    try await test(one, two, TestDatabase(configuration: configuration))
                }
            }
        }
    }
}

/// Polls `condition` every 20 ms until it holds, for at most `timeout`; records a failure if it never does.
func eventually(
    _ what: String, timeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("never happened within \(timeout): \(what)", sourceLocation: sourceLocation)
}

/// Direct access to a test's database, for checking what a request did (or did not) change.
struct TestDatabase: Sendable {
    let configuration: DatabaseConfiguration

    /// The single integer a query returns (e.g. a count).
    func scalar(_ query: PostgresQuery) async throws -> Int {
        let rows = try await self.rows(query)
        return try rows[0].decode(Int.self)
    }

    func execute(_ query: PostgresQuery) async throws {
        _ = try await self.rows(query)
    }

    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        let logger = Logger(label: "soom-test")
        return try await TestPostgres.withConnection(self.configuration, logger: logger) { connection in
            try await connection.query(query, logger: logger).collect()
        }
    }

    /// Row counts of every identity table: equal snapshots mean a request changed nothing.
    func snapshot() async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for table in ["accounts", "spent_challenges", "sessions", "transfer_codes", "withdrawals", "images"] {
            counts[table] = try await self.scalar("SELECT count(*)::int FROM \(unescaped: table)")
        }
        return counts
    }
}

extension TestClientProtocol {
    /// Sends a request with a JSON (or raw) body and an optional bearer token.
    func send(
        _ method: HTTPRequest.Method, _ uri: String, json: Any? = nil, raw: String? = nil, token: String? = nil, headers: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers = headers
        if let token { headers[.authorization] = "Bearer \(token)" }
        var body: ByteBuffer?
        if let json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json))
        } else if let raw {
            headers[.contentType] = "application/json"
            body = ByteBuffer(string: raw)
        }
        return try await self.execute(uri: uri, method: method, headers: headers, body: body)
    }
}

extension TestResponse {
    /// The body as a JSON object.
    var object: [String: Any] {
        get throws {
            guard let object = try JSONSerialization.jsonObject(with: Data(self.body.readableBytesView)) as? [String: Any] else {
                throw ResponseShapeError(body: String(buffer: self.body))
            }
            return object
        }
    }

    /// `error.code` of a contract error body.
    var errorCode: String? {
        ((try? self.object)?["error"] as? [String: Any])?["code"] as? String
    }

    var errorField: String? {
        ((try? self.object)?["error"] as? [String: Any])?["field"] as? String
    }
}

/// A PostgreSQL error with the server's own message, for test output.
struct TestDatabaseError: Error, CustomStringConvertible {
    let detail: String
    var description: String { self.detail }
}

struct ResponseShapeError: Error, CustomStringConvertible {
    let body: String
    var description: String { "not a JSON object: \(self.body.prefix(300))" }
}

/// Runs a test app (its test and then its shutdown) with deadlines, so that no wait can hang
/// the whole run. `body` calls `testFinished` when its test is over and the app's shutdown begins.
/// - A test not finished after `testLimit` fails the test.
/// - A shutdown not finished `shutdownLimit` after its test is given up on — as `soom serve`
///   gives up after `--shutdown-timeout` — and recorded as a known issue, visible in the output.
///   (A run that hung, 17 tests at 0 % CPU for ever, had an app's services still running after
///   its test had passed.)
func runBounded(
    testLimit: Duration = .seconds(300), shutdownLimit: Duration = .seconds(30),
    _ body: @escaping @Sendable (_ testFinished: @escaping @Sendable () -> Void) async throws -> Void
) async throws {
    let testOver = FirstOutcome()
    let allOver = FirstOutcome()
    let work = Task {
        do {
            try await body { testOver.resolve(.success(())) }
            allOver.resolve(.success(()))
        } catch {
            allOver.resolve(.failure(error))
        }
        testOver.resolve(.success(()))
    }
    let testTimer = Task {
        try await Task.sleep(for: testLimit)
        testOver.resolve(.failure(TestTimedOut(limit: testLimit, phase: "test")))
    }
    defer { testTimer.cancel() }
    if case .failure(let error) = await testOver.value {
        work.cancel()
        Issue.record(error)
        return
    }
    let shutdownTimer = Task {
        try await Task.sleep(for: shutdownLimit)
        allOver.resolve(.failure(TestTimedOut(limit: shutdownLimit, phase: "shutdown")))
    }
    defer { shutdownTimer.cancel() }
    let outcome = await allOver.value
    if case .failure(let error as TestTimedOut) = outcome {
        work.cancel()
        withKnownIssue("a test app's shutdown did not finish within \(error.limit) after its test; given up on", isIntermittent: true) {
            Issue.record(error)
        }
        return
    }
    try outcome.get()
}

struct TestTimedOut: Error, CustomStringConvertible {
    let limit: Duration
    let phase: String
    var description: String { "\(self.phase) not finished within \(self.limit)" }
}

/// The first of several results; later ones are ignored.
final class FirstOutcome: Sendable {
    private struct State {
        var result: Result<Void, any Error>?
        var waiter: CheckedContinuation<Result<Void, any Error>, Never>?
    }

    private let state = Mutex(State())

    func resolve(_ result: Result<Void, any Error>) {
        let waiter = self.state.withLock { state -> CheckedContinuation<Result<Void, any Error>, Never>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }

    var value: Result<Void, any Error> {
        get async {
            await withCheckedContinuation { continuation in
                let ready = self.state.withLock { state -> Result<Void, any Error>? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
