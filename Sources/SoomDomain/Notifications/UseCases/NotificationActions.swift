import Foundation

/// A page of the caller's notifications.
public struct ListNotifications: Sendable {
    let notifications: any NotificationRepository

    public init(_ notifications: any NotificationRepository) {
        self.notifications = notifications
    }

    /// The unread list and the full list page separately: a cursor of one is refused by the other.
    static func scope(unreadOnly: Bool) -> String { unreadOnly ? "notifications:unread" : "notifications" }

    public func callAsFunction(unreadOnly: Bool, page: PageRequest, recipient: UUID) async throws -> (
        items: [AccountNotification], nextCursor: String?
    ) {
        let scope = Self.scope(unreadOnly: unreadOnly)
        let position = try page.cursor.map { cursor throws(SoomError) in try FeedCursor.decode(cursor, scope: scope) }
        let result = try await self.notifications.page(for: recipient, unreadOnly: unreadOnly, after: position, limit: page.limit)
        return (result.items, result.next.map { FeedCursor.encode($0, scope: scope) })
    }
}

/// How many of the caller's notifications are unread, in all and by type.
public struct CountUnreadNotifications: Sendable {
    let notifications: any NotificationRepository

    public init(_ notifications: any NotificationRepository) {
        self.notifications = notifications
    }

    public func callAsFunction(recipient: UUID) async throws -> UnreadNotifications {
        UnreadNotifications(byType: try await self.notifications.unreadCounts(for: recipient))
    }
}

/// The unread notifications' counts: by type (only types with some), and their total.
public struct UnreadNotifications: Sendable, Equatable {
    public let byType: [NotificationType: Int]
    public var total: Int { self.byType.values.reduce(0, +) }

    public init(byType: [NotificationType: Int]) {
        self.byType = byType.filter { $0.value > 0 }
    }
}

/// Marks one notification, or all of them, read.
public struct MarkNotificationsRead: Sendable {
    let notifications: any NotificationRepository

    public init(_ notifications: any NotificationRepository) {
        self.notifications = notifications
    }

    /// - Throws: `404 not_found` when the notification does not exist or is someone else's.
    public func callAsFunction(_ id: UUID, recipient: UUID) async throws {
        guard try await self.notifications.markRead(id: id, recipient: recipient) else {
            throw SoomError(.notFound, code: "not_found", message: "There is no such notification.")
        }
    }

    public func all(recipient: UUID) async throws {
        try await self.notifications.markAllRead(recipient: recipient)
    }
}

/// The caller's notification settings: read, or changed field by field.
public struct NotificationSettingsActions: Sendable {
    let notifications: any NotificationRepository

    public init(_ notifications: any NotificationRepository) {
        self.notifications = notifications
    }

    public func read(account: UUID) async throws -> NotificationSettings {
        try await self.notifications.settings(for: account)
    }

    /// Applies only what `change` names; the settings after it.
    public func change(account: UUID, _ change: NotificationSettings.Change) async throws -> NotificationSettings {
        try await self.notifications.changeSettings(for: account, change)
    }
}

/// Opens a live stream of the caller's new notifications, first replaying what a reconnecting
/// client missed.
public struct OpenNotificationStream: Sendable {
    let notifications: any NotificationRepository
    let live: LiveNotifications

    /// The most notifications a reconnection replays (the newest).
    public static let replayLimit = 50

    public init(_ notifications: any NotificationRepository, live: LiveNotifications) {
        self.notifications = notifications
        self.live = live
    }

    /// The stream, open before the replay is read so that nothing made meanwhile is missed (a
    /// notification both replayed and streamed is sent once: `NotificationStream` skips it), and
    /// the replay: those made after `lastEventID` that the caller's settings allow.
    /// - Throws: `503 database_unavailable` while this instance does not hear new notifications.
    public func callAsFunction(account: UUID, lastEventID: UUID?) async throws -> (
        stream: LiveNotifications.Stream, replay: [AccountNotification]
    ) {
        guard let stream = self.live.open(account: account) else {
            throw SoomError.databaseUnavailable(reason: "new notifications are not heard")
        }
        guard let lastEventID else { return (stream, []) }
        do {
            let missed = try await self.notifications.replay(for: account, after: lastEventID, limit: Self.replayLimit)
            return (stream, missed.filter { $0.settings.allows($0.notification.type) }.map(\.notification))
        } catch {
            self.live.close(stream)
            throw error
        }
    }
}
