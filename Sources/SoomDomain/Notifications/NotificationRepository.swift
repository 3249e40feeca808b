import Foundation

/// Storage for notifications. They are written by the changes that cause them (a like, a comment
/// card, a follow: in the same transaction) and, for favourite tags, by `deliverFavoriteTagNotifications`
/// after the post, so that posting costs the same however many accounts favour a tag.
public protocol NotificationRepository: Sendable {
    /// A page of the recipient's notifications, newest first (only unread ones when `unreadOnly`),
    /// leaving out those whose actor and recipient are blocked either way.
    func page(for recipient: UUID, unreadOnly: Bool, after position: FeedPosition?, limit: Int) async throws -> ListPage<AccountNotification>
    /// How many of the recipient's notifications are unread, by type (types without one left
    /// out), counting what `page(unreadOnly: true)` lists: one indexed read.
    func unreadCounts(for recipient: UUID) async throws -> [NotificationType: Int]
    /// Marks one of the recipient's notifications read; false when it is not theirs or does not exist.
    func markRead(id: UUID, recipient: UUID) async throws -> Bool
    /// Marks all of the recipient's notifications read.
    func markAllRead(recipient: UUID) async throws
    /// Turns up to `limit` recent posts with favourited tags into `favorite_tag_used` notifications
    /// (one per post and recipient); returns how many posts it handled. Safe with several instances.
    func deliverFavoriteTagNotifications(limit: Int) async throws -> Int
    /// Deletes up to `limit` notifications made before `cutoff`, read or not; how many went.
    func purge(createdBefore cutoff: Date, limit: Int) async throws -> Int
}
