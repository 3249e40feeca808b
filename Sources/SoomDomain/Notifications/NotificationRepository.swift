import Foundation

/// Storage for notifications. They are written by the changes that cause them (a like, a comment
/// card, a follow: in the same transaction) and, for favourite tags and followers, by
/// `deliverNewCardNotifications` after the post, so that posting costs the same however many
/// accounts are to hear of it.
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
    /// Turns up to `limit` recent posts into their `favorite_tag_used` and `following_posted`
    /// notifications; returns how many posts it handled. Safe with several instances.
    func deliverNewCardNotifications(limit: Int) async throws -> Int
    /// The account's settings (`.everything` when never changed).
    func settings(for account: UUID) async throws -> NotificationSettings
    /// Applies `change` to the account's settings in one statement (two changes at once both
    /// hold) and returns the settings after it.
    func changeSettings(for account: UUID, _ change: NotificationSettings.Change) async throws -> NotificationSettings
    /// The notifications named (by the live channel), each with its recipient's settings, oldest
    /// first, leaving out those gone since and those across a block. One read.
    func live(_ ids: [UUID]) async throws -> [LiveNotification]
    /// The recipient's newest notifications (at most `limit`) made after the one with id `after`,
    /// oldest first, with the recipient's settings; empty when that one is not theirs (or is gone).
    func replay(for recipient: UUID, after: UUID, limit: Int) async throws -> [LiveNotification]
    /// Deletes up to `limit` notifications made before `cutoff`, read or not; how many went.
    func purge(createdBefore cutoff: Date, limit: Int) async throws -> Int
}
