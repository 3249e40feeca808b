import Foundation
import HummingbirdTesting
import Logging
import PostgresNIO
import SoomApp
import SoomDomain
import Testing
import _ConnectionPoolModule

@testable import SoomData

@testable import SoomHTTP

@Suite("When PostgreSQL goes away")
struct DatabaseOutageTests {
    @Test("requests fail fast with 503 database_unavailable, /readyz says 503, and the server recovers by itself")
    func outageAndRecovery() async throws {
        var logger = Logger(label: "soom-test-outage")
        logger.logLevel = .warning
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("soom-outage-\(getpid())-\(UUID().uuidString.prefix(6))")
        let cluster = try EmbeddedPostgres(
            dataDirectory: root.appendingPathComponent("postgres"), settings: ["fsync": "off"], logger: logger)
        ExitCleanup.register(cluster, removing: root)
        try cluster.stopWhenGone(removing: root)
        let configuration = try await cluster.start()
        try await DatabaseMigration.run(configuration, logger: logger)
        let app = try buildApplication(AppConfiguration(hostname: "127.0.0.1", port: 0, database: configuration, logLevel: .critical))

        try await app.test(.ahc(.http)) { client in
            #expect(try await client.send(.get, "/v1/nicknames/suggestion").status == .ok)
            #expect(try await client.send(.get, "/readyz").status == .ok)

            try await cluster.stop()
            let started = ContinuousClock.now
            let failed = try await client.send(.get, "/v1/nicknames/suggestion")
            #expect(failed.status == .serviceUnavailable)
            #expect(failed.errorCode == "database_unavailable")
            #expect(failed.headers[.retryAfter] != nil)
            #expect(
                ContinuousClock.now - started < .seconds(15),
                "an outage must fail requests within seconds (5 s at most; a loaded machine delays timers)")
            let ready = try await client.send(.get, "/readyz")
            #expect(ready.status == .serviceUnavailable && ready.errorCode == "database_unavailable")
            #expect(try await client.send(.get, "/healthz").status == .ok)

            _ = try await cluster.start(port: configuration.port)
            var recovered = false
            for _ in 0..<60 where !recovered {
                try await Task.sleep(for: .milliseconds(500))
                recovered = try await client.send(.get, "/v1/nicknames/suggestion").status == .ok
            }
            #expect(recovered, "the server should reconnect without a restart")
            #expect(try await client.send(.get, "/readyz").status == .ok)
        }
        try await cluster.stop()
        try? FileManager.default.removeItem(at: root)
    }

    @Test("a pool that gave up connecting (its circuit breaker is open) is 503 database_unavailable, not a 500")
    func circuitBreakerOpen() async throws {
        // PostgresClient fails every request with this error once connecting has failed for a
        // minute, until a connection opens. It is never run here: the operation throws it itself.
        // The database's metrics bind to the backend they find at their first use: this may be the
        // process's first database operation, and `/metrics` tests need the Prometheus one.
        SoomMetrics.bootstrap()
        let client = PostgresClient(
            configuration: .init(host: "127.0.0.1", port: 1, username: "soom", password: nil, database: nil, tls: .disable))
        let database = Database(client: client, logger: Logger(label: "soom-test-breaker"))
        let error = await #expect(throws: SoomError.self) {
            try await database.withDeadline(watchingConnection: true) { () async throws -> Int in
                throw ConnectionPoolError.connectionCreationCircuitBreakerTripped
            }
        }
        #expect(error?.kind == .unavailable)
        #expect(error?.code == "database_unavailable")
    }
}
