import Foundation
import Logging
import Metrics
import PostgresNIO
import ServiceLifecycle
import SoomDomain
import Synchronization

/// Feeds this instance's open notification streams (`LiveNotifications`) from the database, on one
/// connection of its own (not from the pool, and one per instance however many streams are open):
///
/// - `soom_notifications` (migration 0026) names each committed notification with its recipient
///   (`<recipient>:<id>`; a payload may hold several, comma-separated),
///   whichever instance made it; those whose recipients have a stream open here are read in
///   batches (`NotificationRepository.live`, one query per batch of up to 500) and delivered.
/// - `soom_account_changed` (migration 0009) names an account whose sessions or identity changed
///   (a sign-out, a withdrawal): its streams are closed, and the client's reconnection is
///   authenticated again.
///
/// Streams open only while the listener is known to hear both channels (`resume()` once `LISTEN`
/// is in place and the triggers exist). When the connection fails, a heartbeat (a notification
/// on each channel every `heartbeat`) is not heard back within `heartbeatTimeout`, or a batch
/// cannot be read, every stream is closed (`suspend()`): clients reconnect with `Last-Event-ID`
/// and replay what they missed. Then it reconnects, waiting 1, 2, 4 … up to 30 seconds.
///
/// Metrics: `soom_notification_streams` (open streams), `soom_notification_stream_listening` (1
/// while streams may open).
public struct LiveNotificationListener: Service {
    let database: DatabaseConfiguration
    let notifications: any NotificationRepository
    let live: LiveNotifications
    let startAfter: OneTimeSignal
    let logger: Logger
    let heartbeat: Duration
    let heartbeatTimeout: Duration

    public init(
        database: DatabaseConfiguration, notifications: any NotificationRepository, live: LiveNotifications, startAfter: OneTimeSignal,
        logger: Logger, heartbeat: Duration = .seconds(5), heartbeatTimeout: Duration = .seconds(3)
    ) {
        self.database = database
        self.notifications = notifications
        self.live = live
        self.startAfter = startAfter
        self.logger = logger
        self.heartbeat = heartbeat
        self.heartbeatTimeout = heartbeatTimeout
    }

    public static let channel = "soom_notifications"
    public static let applicationName = "soom-notification-listener"
    /// The most notifications read in one query.
    static let batch = 500

    /// The triggers both channels depend on, by table.
    static let triggers = [
        ("notifications", "notifications_told"), ("sessions", "sessions_ended"), ("sessions", "sessions_changed"),
        ("sessions", "sessions_truncated"), ("accounts", "accounts_deleted"), ("accounts", "accounts_truncated"),
    ]

    struct UnreadablePayload: Error {}
    struct TriggersMissing: Error {}
    struct NotificationsEnded: Error {}
    struct HeartbeatLost: Error {}

    /// Notification ids waiting to be read, and heartbeats not yet heard back.
    private final class Pending: Sendable {
        private let state = Mutex<(ids: [UUID], heartbeats: Set<String>)>(([], []))
        let (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))

        func add(_ ids: [UUID]) {
            guard !ids.isEmpty else { return }
            self.state.withLock { $0.ids += ids }
            self.signal.yield()
        }

        func take(_ limit: Int) -> [UUID] {
            self.state.withLock { state in
                let taken = Array(state.ids.prefix(limit))
                state.ids.removeFirst(taken.count)
                return taken
            }
        }

        func sent(_ id: String) { self.state.withLock { _ = $0.heartbeats.insert(id) } }
        func heard(_ id: String) { self.state.withLock { _ = $0.heartbeats.remove(id) } }
        func isPending(_ id: String) -> Bool { self.state.withLock { $0.heartbeats.contains(id) } }
    }

    public func run() async throws {
        let listening = Gauge(label: "soom_notification_stream_listening")
        listening.record(0)
        await cancelWhenGracefulShutdown {
            var delay = Duration.seconds(1)
            let reached = Mutex(false)
            while !Task.isCancelled {
                guard self.startAfter.isSignalled else {
                    try? await Task.sleep(for: .milliseconds(100))
                    continue
                }
                do {
                    try await self.listen {
                        reached.withLock { $0 = true }
                        listening.record(1)
                    }
                } catch  where Task.isCancelled || error is CancellationError {
                    break
                } catch {
                    self.logger.warning(
                        "notification streams closed until the database's notifications are heard again",
                        metadata: ["error": "\(loggableDescription(of: error))", "retryIn": "\(delay)"])
                }
                self.live.suspend()
                listening.record(0)
                // A connection that got as far as listening starts the waits over.
                if reached.withLock({ $0 }) { delay = .seconds(1) }
                reached.withLock { $0 = false }
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(30))
            }
        }
        // Shutting down: every stream ends now, so that no open response delays the server's stop.
        self.live.suspend()
        listening.record(0)
    }

    /// One connection's life: returns or throws only when it ends.
    private func listen(onListening: @escaping @Sendable () -> Void) async throws {
        var configuration = try DatabaseProbe.connectionConfiguration(self.database)
        configuration.options.additionalStartupParameters = [("application_name", Self.applicationName)]
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: self.logger)
        do {
            try await connection.listen(on: Self.channel) { told in
                try await connection.listen(on: SessionCache.channel) { accounts in
                    try await self.serve(connection, told: told, accounts: accounts, onListening: onListening)
                }
            }
        } catch {
            await Self.close(connection)
            throw error
        }
        await Self.close(connection)
    }

    /// Closes the connection, waiting 5 seconds at most: a close that never completes must not hold the service.
    private static func close(_ connection: PostgresConnection) async {
        _ = try? await Database.race(.seconds(5)) { try await connection.close() }
    }

    private func serve(
        _ connection: PostgresConnection, told: PostgresNotificationSequence, accounts: PostgresNotificationSequence,
        onListening: @Sendable () -> Void
    ) async throws {
        let (tables, names) = (Self.triggers.map(\.0), Self.triggers.map(\.1))
        let logger = self.logger
        let enabled = try await Database.race(.seconds(5)) {
            try await connection.query(
                """
                SELECT count(*) FROM pg_trigger
                WHERE tgenabled <> 'D' AND (tgrelid::regclass::text, tgname::text) IN (SELECT * FROM unnest(\(tables)::text[], \(names)::text[]))
                """, logger: logger
            ).collect().first.map { try RowCells.decode($0, Int.self) }
        }
        guard enabled == Self.triggers.count else { throw TriggersMissing() }
        self.live.resume()
        onListening()
        let pending = Pending()
        let streams = Gauge(label: "soom_notification_streams")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await notification in told {
                    let payload = notification.payload
                    if payload.hasPrefix("heartbeat:") {
                        pending.heard(payload)
                        continue
                    }
                    pending.add(try self.watchedIDs(in: payload))
                }
                throw NotificationsEnded()
            }
            group.addTask {
                for try await notification in accounts {
                    let payload = notification.payload
                    if payload.hasPrefix("heartbeat:") {
                        pending.heard(payload)
                    } else if payload == "*" {
                        self.live.closeAll()
                    } else if let account = UUID(uuidString: payload) {
                        self.live.close(account: account)
                    } else {
                        throw UnreadablePayload()
                    }
                }
                throw NotificationsEnded()
            }
            group.addTask {
                for await _ in pending.signals {
                    while case let ids = pending.take(Self.batch), !ids.isEmpty {
                        self.live.deliver(try await self.notifications.live(ids))
                    }
                }
                throw NotificationsEnded()
            }
            group.addTask {
                while true {
                    try await Task.sleep(for: self.heartbeat)
                    streams.record(self.live.count)
                    let beats = [Self.channel, SessionCache.channel].map { ($0, "heartbeat:\(UUID().uuidString)") }
                    for (_, id) in beats { pending.sent(id) }
                    _ = try await Database.race(self.heartbeatTimeout) {
                        for (channel, id) in beats {
                            try await connection.query("SELECT pg_notify(\(channel), \(id))", logger: logger)
                        }
                        while beats.contains(where: { pending.isPending($0.1) }) { try await Task.sleep(for: .milliseconds(20)) }
                    }
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    /// The notification ids in a `<recipient>:<id>,…` payload whose recipients have a stream open here.
    private func watchedIDs(in payload: String) throws -> [UUID] {
        var pairs: [(recipient: UUID, id: UUID)] = []
        for pair in payload.split(separator: ",") {
            let parts = pair.split(separator: ":")
            guard parts.count == 2, let recipient = UUID(uuidString: String(parts[0])), let id = UUID(uuidString: String(parts[1])) else {
                throw UnreadablePayload()
            }
            pairs.append((recipient, id))
        }
        let watched = self.live.watched(pairs.map(\.recipient))
        return pairs.filter { watched.contains($0.recipient) }.map(\.id)
    }
}
