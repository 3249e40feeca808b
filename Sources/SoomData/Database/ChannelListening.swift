import Foundation
import Logging
import Metrics
import PostgresNIO
import ServiceLifecycle
import SoomDomain
import Synchronization

/// What the services that LISTEN share (`SessionInvalidationListener`, `LiveNotificationListener`):
/// a connection of their own, a check that the triggers they depend on are there, a heartbeat that
/// proves the whole path, and a close that cannot hold them up. Every wait has a deadline: with
/// PostgresNIO 1.33 a query on a connection the server ended can wait for ever.
enum ChannelListening {
    /// The heartbeats sent and not yet heard back (`heartbeat:<id>` payloads).
    final class Heartbeats: Sendable {
        private let pending = Mutex<Set<String>>([])
        func sent(_ id: String) { self.pending.withLock { _ = $0.insert(id) } }
        func heard(_ id: String) { self.pending.withLock { _ = $0.remove(id) } }
        func isPending(_ id: String) -> Bool { self.pending.withLock { $0.contains(id) } }
    }

    /// A connection of its own (not from the pool), named `applicationName` in `pg_stat_activity`.
    static func connect(_ database: DatabaseConfiguration, applicationName: String, logger: Logger) async throws -> PostgresConnection {
        var configuration = try DatabaseProbe.connectionConfiguration(database)
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        return try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
    }

    /// Whether every one of `triggers` (table, name) exists and is enabled; asked within `timeout`.
    static func triggersEnabled(
        _ triggers: [(table: String, name: String)], on connection: PostgresConnection, within timeout: Duration, logger: Logger
    ) async throws -> Bool {
        let (tables, names) = (triggers.map(\.table), triggers.map(\.name))
        let enabled = try await Database.race(timeout) {
            try await connection.query(
                """
                SELECT count(*) FROM pg_trigger
                WHERE tgenabled <> 'D' AND (tgrelid::regclass::text, tgname::text) IN (SELECT * FROM unnest(\(tables)::text[], \(names)::text[]))
                """, logger: logger
            ).collect().first.map { try RowCells.decode($0, Int.self) }
        }
        return enabled == triggers.count
    }

    /// Every `interval`, one heartbeat on each channel, each to be heard back (`heartbeats.heard`,
    /// by whoever reads the channel) within `timeout`, or this throws and the connection is given
    /// up. A dead connection does not always fail by itself, and a pooler in transaction mode
    /// answers queries but drops notifications.
    static func beat(
        _ connection: PostgresConnection, channels: [String], heartbeats: Heartbeats, every interval: Duration, within timeout: Duration,
        logger: Logger
    ) async throws {
        while true {
            try await Task.sleep(for: interval)
            let beats = channels.map { ($0, "heartbeat:\(UUID().uuidString)") }
            for (_, id) in beats { heartbeats.sent(id) }
            _ = try await Database.race(timeout) {
                for (channel, id) in beats {
                    try await connection.query("SELECT pg_notify(\(channel), \(id))", logger: logger)
                }
                while beats.contains(where: { heartbeats.isPending($0.1) }) { try await Task.sleep(for: .milliseconds(20)) }
            }
        }
    }

    /// Closes the connection, waiting `timeout` at most: a close that never completes must not hold the service.
    static func close(_ connection: PostgresConnection, within timeout: Duration) async {
        _ = try? await Database.race(timeout) { try await connection.close() }
    }

    /// A listening service's life until shutdown: once `startAfter` fires, `listen` runs one
    /// connection (calling its argument once it hears every channel, when `gauge` goes to 1) until
    /// it ends; then `lost` runs (the service stops trusting what it keeps), `gauge` goes to 0, and
    /// after 1, 2, 4 … 30 seconds (1 again after a connection that got as far as listening) it
    /// connects again. A graceful shutdown ends it; `lost` runs once more on the way out.
    static func keepListening(
        startAfter: OneTimeSignal, gauge: String, whileLost: String, logger: Logger,
        listen: @escaping @Sendable (_ onListening: @escaping @Sendable () -> Void) async throws -> Void, lost: @escaping @Sendable () -> Void
    ) async {
        let listening = Gauge(label: gauge)
        listening.record(0)
        await cancelWhenGracefulShutdown {
            var delay = Duration.seconds(1)
            let reached = Mutex(false)
            while !Task.isCancelled {
                guard startAfter.isSignalled else {
                    try? await Task.sleep(for: .milliseconds(100))
                    continue
                }
                do {
                    try await listen {
                        reached.withLock { $0 = true }
                        listening.record(1)
                    }
                } catch  where Task.isCancelled || error is CancellationError {
                    break  // stopping: the notifications end because this task was cancelled
                } catch {
                    if reached.withLock({ $0 }) { delay = .seconds(1) }
                    logger.warning(
                        "\(whileLost) until the database's notifications are heard again",
                        metadata: ["error": "\(loggableDescription(of: error))", "retryIn": "\(delay)"])
                }
                lost()
                listening.record(0)
                if reached.withLock({ reached in
                    defer { reached = false }
                    return reached
                }) {
                    delay = .seconds(1)
                }
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(30))
            }
        }
        lost()
        listening.record(0)
    }
}
