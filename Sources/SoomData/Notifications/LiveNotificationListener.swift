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
    static let triggers: [(table: String, name: String)] = [
        ("notifications", "notifications_told"), ("sessions", "sessions_ended"), ("sessions", "sessions_changed"),
        ("sessions", "sessions_truncated"), ("accounts", "accounts_deleted"), ("accounts", "accounts_truncated"),
    ]

    struct UnreadablePayload: Error {}
    struct TriggersMissing: Error {}
    struct NotificationsEnded: Error {}
    struct HeartbeatLost: Error {}

    /// Notification ids waiting to be read.
    private final class Pending: Sendable {
        private let state = Mutex<[UUID]>([])
        let (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))

        func add(_ ids: [UUID]) {
            guard !ids.isEmpty else { return }
            self.state.withLock { $0 += ids }
            self.signal.yield()
        }

        func take(_ limit: Int) -> [UUID] {
            self.state.withLock { ids in
                let taken = Array(ids.prefix(limit))
                ids.removeFirst(taken.count)
                return taken
            }
        }
    }

    public func run() async throws {
        // On the way out every stream ends at once, so that no open response delays the server's stop.
        await ChannelListening.keepListening(
            startAfter: self.startAfter, gauge: "soom_notification_stream_listening", whileLost: "notification streams closed",
            logger: self.logger, listen: self.listen(onListening:), lost: self.live.suspend)
    }

    /// One connection's life: returns or throws only when it ends.
    private func listen(onListening: @escaping @Sendable () -> Void) async throws {
        let connection = try await ChannelListening.connect(self.database, applicationName: Self.applicationName, logger: self.logger)
        do {
            try await connection.listen(on: Self.channel) { told in
                try await connection.listen(on: SessionCache.channel) { accounts in
                    try await self.serve(connection, told: told, accounts: accounts, onListening: onListening)
                }
            }
        } catch {
            await ChannelListening.close(connection, within: .seconds(5))
            throw error
        }
        await ChannelListening.close(connection, within: .seconds(5))
    }

    private func serve(
        _ connection: PostgresConnection, told: PostgresNotificationSequence, accounts: PostgresNotificationSequence,
        onListening: @Sendable () -> Void
    ) async throws {
        guard try await ChannelListening.triggersEnabled(Self.triggers, on: connection, within: .seconds(5), logger: self.logger) else {
            throw TriggersMissing()
        }
        self.live.resume()
        onListening()
        let pending = Pending()
        let heartbeats = ChannelListening.Heartbeats()
        let streams = Gauge(label: "soom_notification_streams")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await notification in told {
                    let payload = notification.payload
                    if payload.hasPrefix("heartbeat:") {
                        heartbeats.heard(payload)
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
                        heartbeats.heard(payload)
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
                try await ChannelListening.beat(
                    connection, channels: [Self.channel, SessionCache.channel], heartbeats: heartbeats, every: self.heartbeat,
                    within: self.heartbeatTimeout, logger: self.logger)
            }
            group.addTask {
                while true {
                    streams.record(self.live.count)
                    try await Task.sleep(for: .seconds(5))
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
