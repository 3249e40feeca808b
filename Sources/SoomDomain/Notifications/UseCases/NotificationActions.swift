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
