import Foundation
import PostgresNIO
import SoomDomain

/// `NotificationRepository` on PostgreSQL. Likes, comment cards and follows write their
/// notifications themselves (`PostgresCardRepository`, `set_follow`); this type reads them, marks
/// them read, and delivers the favourite-tag notifications queued in `tag_notification_outbox`.
public struct PostgresNotificationRepository: NotificationRepository {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// A `card_liked` notification names nobody (likes are private): its actor is read only to
    /// leave out likes across a block, never returned.
    public func page(for recipient: UUID, unreadOnly: Bool, after position: FeedPosition?, limit: Int) async throws -> ListPage<AccountNotification> {
        let rows = try await self.database.rows(
            """
            SELECT n.id, n.type, n.created_at, n.read, n.card_id, n.tag, n.until,
                   \(unescaped: ProfileRow.userColumns), \(unescaped: ProfileRow.micros("n.created_at"))
            FROM (SELECT \(recipient)::uuid AS id) r, notifications n LEFT JOIN accounts a ON a.id = n.actor_id AND n.type <> 'card_liked'
            WHERE n.recipient_id = r.id AND (n.actor_id IS NULL OR \(unescaped: CardRow.notBlocked("r.id", "n.actor_id")))
              \(unescaped: unreadOnly ? Self.unread : Self.readOrNot) AND (n.created_at, n.id) < \(position: position ?? .top)
            ORDER BY n.created_at DESC, n.id DESC LIMIT \(limit + 1)
            """
        ).map { row in
            var cells = RowCells(row)
            let id = try cells.next(UUID.self)
            let type = try cells.next(String.self)
            let createdAt = try cells.next(Date.self)
            let read = try cells.next(Bool.self)
            let cardID = try cells.next(UUID?.self)
            let tag = try cells.next(String?.self)
            let until = try cells.next(Date?.self)
            let (actorID, actorNickname) = (try cells.next(UUID?.self), try cells.next(String?.self))
            let (actorImageKind, actorImageRef) = (try cells.next(String?.self), try cells.next(String?.self))
            let actorIsOperator = try cells.next(Bool?.self) ?? false
            let notification = AccountNotification(
                id: id,
                type: NotificationType(rawValue: type) ?? .followed,
                createdAt: createdAt,
                read: read,
                actor: actorID.flatMap { actorID in
                    actorNickname.map {
                        ProfileRow.user(
                            id: actorID, nickname: $0, imageKind: actorImageKind, imageRef: actorImageRef, isOperator: actorIsOperator)
                    }
                },
                cardID: cardID,
                tag: tag,
                until: until)
            return (item: notification, position: FeedPosition(createdAtMicros: try cells.next(Int64.self), id: id))
        }
        return ListPage(rows: rows, limit: limit)
    }

    /// Reads the unread index (`notifications_unread_idx`) of one recipient, with `page`'s block filter.
    public func unreadCounts(for recipient: UUID) async throws -> [NotificationType: Int] {
        let rows = try await self.database.rows(
            """
            SELECT n.type, count(*)::int
            FROM (SELECT \(recipient)::uuid AS id) r, notifications n
            WHERE n.recipient_id = r.id AND NOT n.read AND (n.actor_id IS NULL OR \(unescaped: CardRow.notBlocked("r.id", "n.actor_id")))
            GROUP BY n.type
            """)
        var counts: [NotificationType: Int] = [:]
        for row in rows {
            let (type, count) = try RowCells.decode(row, String.self, Int.self)
            if let type = NotificationType(rawValue: type) { counts[type] = count }
        }
        return counts
    }

    /// `page`'s filter: only unread notifications, or every one.
    private static let unread = "AND NOT n.read"
    private static let readOrNot = ""

    public func markRead(id: UUID, recipient: UUID) async throws -> Bool {
        // Marking read takes a notification out of the "one unread per actor" indexes: never a conflict.
        let rows = try await self.database.rows(
            "UPDATE notifications SET read = true WHERE id = \(id) AND recipient_id = \(recipient) RETURNING 1")
        return !rows.isEmpty
    }

    public func markAllRead(recipient: UUID) async throws {
        try await self.database.execute("UPDATE notifications SET read = true WHERE recipient_id = \(recipient) AND NOT read")
    }

    /// One statement per batch: takes up to `limit` queued posts (skipping those another instance
    /// is handling), and inserts one notification per post and favouriter — not the author, not
    /// across a block, not for a post deleted or expired meanwhile — naming the first of the post's
    /// tags (in key order) that the recipient favours. A recipient who has not read the last
    /// notification of that tag gets no new one (one unread per recipient and tag): a flood of
    /// tagged posts is one notice, not hundreds.
    public func deliverFavoriteTagNotifications(limit: Int) async throws -> Int {
        let rows = try await self.database.rows(
            """
            WITH batch AS (
                DELETE FROM tag_notification_outbox WHERE card_id IN (
                    SELECT card_id FROM tag_notification_outbox ORDER BY created_at LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                RETURNING card_id),
            delivered AS (
                INSERT INTO notifications (id, recipient_id, type, actor_id, card_id, tag, created_at)
                SELECT gen_random_uuid(), r.account_id, 'favorite_tag_used', r.author_id, r.card_id, r.name, now()
                FROM (
                    SELECT DISTINCT ON (f.account_id, c.id) f.account_id, c.author_id, c.id AS card_id, t.name
                    FROM batch JOIN cards c ON c.id = batch.card_id AND \(unescaped: CardRow.live)
                    JOIN card_tags ct ON ct.card_id = c.id
                    JOIN favorite_tags f ON f.tag_key = ct.tag_key AND f.account_id <> c.author_id
                    JOIN tags t ON t.key = ct.tag_key
                    WHERE \(unescaped: CardRow.notBlocked("f.account_id", "c.author_id"))
                    ORDER BY f.account_id, c.id, ct.tag_key) r
                ON CONFLICT (recipient_id, tag) WHERE type = 'favorite_tag_used' AND NOT read DO NOTHING
                RETURNING 1)
            SELECT (SELECT count(*) FROM batch)::int, (SELECT count(*) FROM delivered)::int
            """)
        return try RowCells.decode(rows[0], Int.self, Int.self).0
    }

    /// Deletes up to `limit` notifications made before `cutoff` (the contract keeps them 30 days),
    /// read or not. Returns how many.
    public func purge(createdBefore cutoff: Date, limit: Int) async throws -> Int {
        try await self.database.purge(.notifications, before: cutoff, limit: limit)
    }
}
