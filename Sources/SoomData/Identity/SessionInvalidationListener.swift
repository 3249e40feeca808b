import Foundation
import Logging
import Metrics
import PostgresNIO
import ServiceLifecycle
import SoomDomain

/// Keeps this instance's `SessionCache` honest: listens on `SessionCache.channel` over a
/// connection of its own (not from the pool) and drops the entries of every account a
/// notification names.
///
/// The cache is used only while this listener is known to hear every change:
/// - `resume()` once `LISTEN` is in place and the schema's triggers exist (migration 0009);
/// - `suspend()` (which empties it) as soon as the connection fails, a heartbeat goes
///   unanswered for `heartbeatTimeout`, or the service stops; then it reconnects, waiting
///   1, 2, 4 … up to 30 seconds between attempts, and resumes.
/// A silent network loss is what the heartbeat is for: a dead connection does not always fail
/// by itself, and notifications sent meanwhile would be lost.
///
/// Metric: `soom_session_cache_listening`, 1 while the cache is in use, else 0.
public struct SessionInvalidationListener: Service {
    let database: DatabaseConfiguration
    let cache: SessionCache
    let startAfter: OneTimeSignal
    let logger: Logger
    let heartbeat: Duration
    let heartbeatTimeout: Duration

    /// - Parameter startAfter: the first connection waits for it (the triggers come with the schema).
    public init(
        database: DatabaseConfiguration, cache: SessionCache, startAfter: OneTimeSignal, logger: Logger,
        heartbeat: Duration = .seconds(5), heartbeatTimeout: Duration = .seconds(3)
    ) {
        self.database = database
        self.cache = cache
        self.startAfter = startAfter
        self.logger = logger
        self.heartbeat = heartbeat
        self.heartbeatTimeout = heartbeatTimeout
    }

    /// How the connection shows in `pg_stat_activity`.
    public static let applicationName = "soom-session-listener"

    /// A notification that is not an account id: the cache cannot tell what changed.
    struct UnreadablePayload: Error {}
    /// The schema lacks migration 0009's triggers: changes would go unheard.
    struct TriggersMissing: Error {}
    /// The notifications ended without an error (the connection closed).
    struct NotificationsEnded: Error {}

    public func run() async throws {
        let listening = Gauge(label: "soom_session_cache_listening")
        listening.record(0)
        await cancelWhenGracefulShutdown {
            var delay = Duration.seconds(1)
            while !Task.isCancelled {
                guard self.startAfter.isSignalled else {
                    try? await Task.sleep(for: .milliseconds(100))
                    continue
                }
                do {
                    try await self.listen {
                        delay = .seconds(1)
                        listening.record(1)
                    }
                } catch where Task.isCancelled || error is CancellationError {
                    break  // stopping: the notifications end because this task was cancelled
                } catch {
                    self.logger.warning(
                        "session cache off until the database's notifications are heard again",
                        metadata: ["error": "\(loggableDescription(of: error))", "retryIn": "\(delay)"])
                }
                self.cache.suspend()
                listening.record(0)
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(30))
            }
        }
        self.cache.suspend()
        listening.record(0)
    }

    /// One connection's life: returns or throws only when it ends.
    private func listen(onListening: () -> Void) async throws {
        var configuration = try DatabaseProbe.connectionConfiguration(self.database)
        configuration.options.additionalStartupParameters = [("application_name", Self.applicationName)]
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: self.logger)
        do {
            try await connection.listen(on: SessionCache.channel) { notifications in
                let triggers = try await connection.query(
                    "SELECT count(*) FROM pg_trigger WHERE tgname IN ('sessions_ended', 'accounts_deleted')", logger: self.logger
                ).collect().first?.decode(Int.self)
                guard triggers == 2 else { throw TriggersMissing() }
                self.cache.resume()
                onListening()
                self.logger.debug("session cache on: listening for account changes")
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await notification in notifications {
                            guard let accountID = UUID(uuidString: notification.payload) else { throw UnreadablePayload() }
                            self.cache.invalidate(account: accountID)
                        }
                        throw NotificationsEnded()
                    }
                    group.addTask {
                        while true {
                            try await Task.sleep(for: self.heartbeat)
                            _ = try await Database.race(self.heartbeatTimeout) {
                                try await connection.query("SELECT 1", logger: self.logger).collect()
                            }
                        }
                    }
                    // Both run until one fails; that failure ends this connection.
                    try await group.next()
                    group.cancelAll()
                }
            }
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
    }
}
