import Foundation
import Logging
import Metrics
import PostgresNIO
import ServiceLifecycle
import SoomDomain
import Synchronization

/// Keeps this instance's `SessionCache` and `ViewerMarkCache`, and the viewers' kept positions in
/// `FeedPageCache`, honest: listens on `SessionCache.channel` and `ViewerMarkCache.channel` over a
/// connection of its own (not from the pool) and drops the entries of every account a notification
/// names (on the marks' channel: the viewer's marks and the positions of their following feed).
///
/// The caches are used only while this listener is known to hear every change:
/// - `resume()` once `LISTEN` is in place and the triggers of migrations 0009 (six, sessions and
///   accounts), 0014 (twelve, marks), 0015 (four, follows), 0023 (four, comment cards' authors) and 0024 (four, ballots)
///   exist and are enabled;
/// - `suspend()` (which empties them) as soon as the connection fails, a heartbeat is not heard
///   back within `heartbeatTimeout`, or the service stops; then it reconnects, waiting
///   1, 2, 4 … up to 30 seconds between attempts, and resumes.
/// The heartbeat is itself a notification on each channel, sent every `heartbeat` and expected
/// back: it proves the whole path, not just the connection. A dead connection does not always
/// fail by itself, and a pooler in transaction mode answers queries but drops notifications.
///
/// Payloads, on either channel: an account id (drop its sessions, or its marks), `*` (drop them
/// all: a `TRUNCATE`, a bulk change), `heartbeat:<id>`. The marks have a channel of their own so
/// that an instance of an earlier version, whose listener knows only the sessions' payloads,
/// goes on working beside this one.
///
/// Every wait on the connection has a deadline or is cancellable: the trigger check and the close
/// are raced against `setupTimeout`, the heartbeat against `heartbeatTimeout`. With PostgresNIO
/// 1.33, a query sent on a connection the server ends (`pg_terminate_backend`, a restart) just
/// after `LISTEN` can wait for ever, and no cancellation reaches it. Awaited bare, that stalled
/// the service, and with it the graceful shutdown of the whole server (the test suite's rare
/// hang: seen in 1 of 80 listener stops under `ListenerStopTests`' terminations, and in 5 of 36
/// apps under `ShutdownStressTests`; none since).
///
/// Metric: `soom_session_cache_listening`, 1 while the caches are in use, else 0.
public struct SessionInvalidationListener: Service {
    let database: DatabaseConfiguration
    let cache: SessionCache
    let marks: ViewerMarkCache
    let feedPages: FeedPageCache
    let startAfter: OneTimeSignal
    let logger: Logger
    let heartbeat: Duration
    let heartbeatTimeout: Duration
    /// The longest the trigger check or a close may take before the connection is given up.
    let setupTimeout: Duration

    /// - Parameter startAfter: the first connection waits for it (the triggers come with the schema).
    public init(
        database: DatabaseConfiguration, cache: SessionCache, marks: ViewerMarkCache = ViewerMarkCache(lifetime: 0),
        feedPages: FeedPageCache = FeedPageCache(lifetime: 0), startAfter: OneTimeSignal,
        logger: Logger,
        heartbeat: Duration = .seconds(5), heartbeatTimeout: Duration = .seconds(3), setupTimeout: Duration = .seconds(5)
    ) {
        self.database = database
        self.cache = cache
        self.marks = marks
        self.feedPages = feedPages
        self.startAfter = startAfter
        self.logger = logger
        self.heartbeat = heartbeat
        self.heartbeatTimeout = heartbeatTimeout
        self.setupTimeout = setupTimeout
    }

    /// How the connection shows in `pg_stat_activity`.
    public static let applicationName = "soom-session-listener"

    /// A notification that is not an account id: the cache cannot tell what changed.
    struct UnreadablePayload: Error {}
    /// The schema lacks migration 0009's triggers (or some are disabled): changes would go unheard.
    struct TriggersMissing: Error {}
    /// The notifications ended without an error (the connection closed).
    struct NotificationsEnded: Error {}

    /// The triggers of migrations 0009, 0014, 0015, 0023 and 0024, by table.
    static let triggers: [(table: String, name: String)] = [
        ("sessions", "sessions_ended"), ("sessions", "sessions_changed"), ("sessions", "sessions_truncated"),
        ("accounts", "accounts_deleted"), ("accounts", "accounts_identity_changed"), ("accounts", "accounts_truncated"),
        ("likes", "likes_marked"), ("likes", "likes_unmarked"), ("likes", "likes_remarked"), ("likes", "likes_marks_truncated"),
        ("blocks", "blocks_marked"), ("blocks", "blocks_unmarked"), ("blocks", "blocks_remarked"), ("blocks", "blocks_marks_truncated"),
        ("reports", "reports_marked"), ("reports", "reports_unmarked"), ("reports", "reports_remarked"), ("reports", "reports_marks_truncated"),
        ("follows", "follows_marked"), ("follows", "follows_unmarked"), ("follows", "follows_remarked"), ("follows", "follows_marks_truncated"),
        ("cards", "cards_commenter_marked"), ("cards", "cards_commenter_unmarked"), ("cards", "cards_commenter_remarked"),
        ("cards", "cards_commenter_truncated"),
        ("poll_ballots", "poll_ballots_marked"), ("poll_ballots", "poll_ballots_unmarked"), ("poll_ballots", "poll_ballots_remarked"),
        ("poll_ballots", "poll_ballots_marks_truncated"),
    ]

    public func run() async throws {
        await ChannelListening.keepListening(
            startAfter: self.startAfter, gauge: "soom_session_cache_listening", whileLost: "session and marks caches off",
            logger: self.logger, listen: self.listen(onListening:), lost: self.suspendCaches)
    }

    /// Empties the caches and keeps nothing until the listener is back: changes may go unheard.
    /// (The viewers' positions are used only while `marks` is active; those kept are dropped.)
    private func suspendCaches() {
        self.cache.suspend()
        self.marks.suspend()
        self.feedPages.invalidateViewers()
    }

    /// One connection's life: returns or throws only when it ends.
    private func listen(onListening: @escaping @Sendable () -> Void) async throws {
        let connection = try await ChannelListening.connect(self.database, applicationName: Self.applicationName, logger: self.logger)
        do {
            try await connection.listen(on: SessionCache.channel) { sessionNotifications in
                try await connection.listen(on: ViewerMarkCache.channel) { markNotifications in
                    try await self.serve(connection, sessions: sessionNotifications, marks: markNotifications, onListening: onListening)
                }
            }
        } catch {
            await ChannelListening.close(connection, within: self.setupTimeout)
            throw error
        }
        await ChannelListening.close(connection, within: self.setupTimeout)
    }

    /// With `LISTEN` in place on both channels: checks the triggers, switches the caches on, and
    /// serves notifications and heartbeats until one fails.
    private func serve(
        _ connection: PostgresConnection, sessions: PostgresNotificationSequence, marks: PostgresNotificationSequence,
        onListening: @Sendable () -> Void
    ) async throws {
        guard try await ChannelListening.triggersEnabled(Self.triggers, on: connection, within: self.setupTimeout, logger: self.logger) else {
            throw TriggersMissing()
        }
        self.cache.resume()
        self.marks.resume()
        onListening()
        self.logger.debug("session and marks caches on: listening for account changes")
        let heartbeats = ChannelListening.Heartbeats()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await Self.consume(sessions, heartbeats: heartbeats, all: self.cache.invalidateAll, one: self.cache.invalidate(account:))
            }
            group.addTask {
                try await Self.consume(
                    marks, heartbeats: heartbeats,
                    all: {
                        self.marks.invalidateAll()
                        self.feedPages.invalidateViewers()
                    },
                    one: { viewer in
                        self.marks.invalidate(viewer: viewer)
                        self.feedPages.invalidate(viewer: viewer)
                    })
            }
            group.addTask {
                try await ChannelListening.beat(
                    connection, channels: [SessionCache.channel, ViewerMarkCache.channel], heartbeats: heartbeats, every: self.heartbeat,
                    within: self.heartbeatTimeout, logger: self.logger)
            }
            // All run until one fails; that failure ends this connection.
            try await group.next()
        }
    }

    /// Reads one channel's notifications until they end (which throws): a heartbeat is heard, `*`
    /// calls `all`, an account id `one`; anything else is unreadable.
    private static func consume(
        _ notifications: PostgresNotificationSequence, heartbeats: ChannelListening.Heartbeats, all: @Sendable () -> Void,
        one: @Sendable (UUID) -> Void
    ) async throws {
        for try await notification in notifications {
            let payload = notification.payload
            if payload.hasPrefix("heartbeat:") {
                heartbeats.heard(payload)
            } else if payload == "*" {
                all()
            } else if let accountID = UUID(uuidString: payload) {
                one(accountID)
            } else {
                throw UnreadablePayload()
            }
        }
        throw NotificationsEnded()
    }
}
