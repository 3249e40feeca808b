import Foundation
import PostgresNIO
import SoomDomain

/// `NotificationRepository` on PostgreSQL. Likes, comment cards and follows write their
/// notifications themselves (`PostgresCardRepository`, `set_follow`); this type reads them, marks
/// them read, and delivers the notifications of new cards queued in `tag_notification_outbox`.
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
            SELECT \(unescaped: Self.columns), \(unescaped: ProfileRow.micros("n.created_at"))
            FROM (SELECT \(recipient)::uuid AS id) r, notifications n LEFT JOIN accounts a ON a.id = n.actor_id AND n.type <> 'card_liked'
            WHERE n.recipient_id = r.id AND (n.actor_id IS NULL OR \(unescaped: CardRow.notBlocked("r.id", "n.actor_id")))
              \(unescaped: unreadOnly ? Self.unread : Self.readOrNot) AND (n.created_at, n.id) < \(position: position ?? .top)
            ORDER BY n.created_at DESC, n.id DESC LIMIT \(limit + 1)
            """
        ).map { row in
            var cells = RowCells(row)
            let notification = try Self.notification(&cells)
            return (item: notification, position: FeedPosition(createdAtMicros: try cells.next(Int64.self), id: notification.id))
        }
        return ListPage(rows: rows, limit: limit)
    }

    /// A notification's columns, for `notification(_:)`: `n` is the notification, `a` its actor
    /// when shown (outer-joined).
    static let columns = "n.id, n.type, n.created_at, n.read, n.card_id, n.tag, n.until, \(ProfileRow.userColumns)"

    /// A notification from the next cells (`columns`).
    static func notification(_ cells: inout RowCells) throws -> AccountNotification {
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
        return AccountNotification(
            id: id,
            type: NotificationType(rawValue: type) ?? .followed,
            createdAt: createdAt,
            read: read,
            actor: actorID.flatMap { actorID in
                actorNickname.map {
                    ProfileRow.user(id: actorID, nickname: $0, imageKind: actorImageKind, imageRef: actorImageRef, isOperator: actorIsOperator)
                }
            },
            cardID: cardID,
            tag: tag,
            until: until)
    }

    /// The settings' columns (`s`, outer-joined: no row is every type on), for `settings(_:)`.
    static let settingsColumns = "s.muted, s.quiet_start, s.quiet_end, s.quiet_time_zone"

    /// Settings from the next cells (`settingsColumns`); a zone the system no longer knows is read as UTC.
    static func settings(_ cells: inout RowCells) throws -> NotificationSettings {
        let muted = try cells.next([String]?.self) ?? []
        let (start, end, zone) = (try cells.next(Int16?.self), try cells.next(Int16?.self), try cells.next(String?.self))
        let quietHours = start.flatMap { start in
            end.map { end in
                QuietHours(startMinutes: Int(start), endMinutes: Int(end), timeZone: zone.flatMap(TimeZone.init(identifier:)) ?? .gmt)
            }
        }
        return NotificationSettings(muted: Set(muted.compactMap(NotificationType.init(rawValue:))), quietHours: quietHours)
    }

    public func settings(for account: UUID) async throws -> NotificationSettings {
        let rows = try await self.database.rows(
            """
            SELECT \(unescaped: Self.settingsColumns)
            FROM (SELECT \(account)::uuid AS id) r LEFT JOIN notification_settings s ON s.account_id = r.id
            """)
        var cells = RowCells(rows[0])
        return try Self.settings(&cells)
    }

    /// An upsert that merges: the types turned off are added to `muted`, those turned on taken out,
    /// and the quiet hours replaced only when sent. An account withdrawn meanwhile gets nothing stored.
    public func changeSettings(for account: UUID, _ change: NotificationSettings.Change) async throws -> NotificationSettings {
        let off = change.switches.filter { !$0.value }.map(\.key.rawValue)
        let on = change.switches.filter(\.value).map(\.key.rawValue)
        let quiet = change.quietHours ?? nil
        let rows = try await self.database.rows(
            """
            INSERT INTO notification_settings AS s (account_id, muted, quiet_start, quiet_end, quiet_time_zone)
            SELECT id, ARRAY(SELECT DISTINCT m FROM unnest(\(off)::text[]) m ORDER BY 1), \(quiet.map { Int16($0.start) }),
                   \(quiet.map { Int16($0.end) }), \(quiet?.timeZone.identifier)
            FROM accounts WHERE id = \(account)
            ON CONFLICT (account_id) DO UPDATE SET
                muted = ARRAY(SELECT DISTINCT m FROM unnest(s.muted || \(off)::text[]) m WHERE m <> ALL (\(on)::text[]) ORDER BY 1),
                quiet_start = CASE WHEN \(change.quietHours != nil) THEN excluded.quiet_start ELSE s.quiet_start END,
                quiet_end = CASE WHEN \(change.quietHours != nil) THEN excluded.quiet_end ELSE s.quiet_end END,
                quiet_time_zone = CASE WHEN \(change.quietHours != nil) THEN excluded.quiet_time_zone ELSE s.quiet_time_zone END
            RETURNING \(unescaped: Self.settingsColumns)
            """)
        guard let row = rows.first else { return NotificationSettings.everything.applying(change) }
        var cells = RowCells(row)
        return try Self.settings(&cells)
    }

    public func live(_ ids: [UUID]) async throws -> [LiveNotification] {
        guard !ids.isEmpty else { return [] }
        return try await self.liveRows(
            """
            SELECT n.recipient_id, \(unescaped: Self.columns), \(unescaped: Self.settingsColumns)
            FROM notifications n LEFT JOIN accounts a ON a.id = n.actor_id AND n.type <> 'card_liked'
            LEFT JOIN notification_settings s ON s.account_id = n.recipient_id
            WHERE n.id = ANY(\(ids)::uuid[]) AND (n.actor_id IS NULL OR \(unescaped: CardRow.notBlocked("n.recipient_id", "n.actor_id")))
            ORDER BY n.created_at, n.id
            """)
    }

    public func replay(for recipient: UUID, after: UUID, limit: Int) async throws -> [LiveNotification] {
        try await self.liveRows(
            """
            SELECT * FROM (
                SELECT n.recipient_id, \(unescaped: Self.columns), \(unescaped: Self.settingsColumns)
                FROM notifications seen
                JOIN notifications n ON n.recipient_id = seen.recipient_id AND (n.created_at, n.id) > (seen.created_at, seen.id)
                LEFT JOIN accounts a ON a.id = n.actor_id AND n.type <> 'card_liked'
                LEFT JOIN notification_settings s ON s.account_id = n.recipient_id
                WHERE seen.id = \(after) AND seen.recipient_id = \(recipient)
                  AND (n.actor_id IS NULL OR \(unescaped: CardRow.notBlocked("n.recipient_id", "n.actor_id")))
                ORDER BY n.created_at DESC, n.id DESC LIMIT \(limit)) newest
            ORDER BY 4, 2
            """)
    }

    private func liveRows(_ query: PostgresQuery) async throws -> [LiveNotification] {
        try await self.database.rows(query).map { row in
            var cells = RowCells(row)
            let recipient = try cells.next(UUID.self)
            let notification = try Self.notification(&cells)
            return LiveNotification(recipient: recipient, notification: notification, settings: try Self.settings(&cells))
        }
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

    /// Takes up to `limit` queued posts and `limit` queued authors (skipping those another
    /// instance is handling); returns the larger count. For each post still live:
    /// - `favorite_tag_used` to each favouriter — not the author, not across a block — naming the
    ///   first of the post's tags (in key order) that the recipient favours (one statement, which
    ///   deletes the posts from their queue);
    /// - `following_posted` to each follower of a queued author (a block removes follows both ways,
    ///   so no follower is blocked), naming the first card posted since the author was queued, when
    ///   it is still live: the authors are taken in a short transaction (a lease), fanned out in a
    ///   second, and deleted from the queue in a third, so that an author's next post, which finds
    ///   the queue row and does nothing, never waits for the fan-out.
    /// A recipient who has not read the last notification of that tag, or of that author's posts,
    /// gets no new one (one unread per recipient and tag, or author): a flood of posts is one
    /// notice, not hundreds.
    public func deliverNewCardNotifications(limit: Int) async throws -> Int {
        let tagged = try await self.database.rows(
            """
            WITH batch AS (
                DELETE FROM tag_notification_outbox WHERE card_id IN (
                    SELECT card_id FROM tag_notification_outbox ORDER BY created_at LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                RETURNING card_id),
            live AS (SELECT c.id, c.author_id FROM batch JOIN cards c ON c.id = batch.card_id AND \(unescaped: CardRow.live)),
            tagged AS (
                INSERT INTO notifications (id, recipient_id, type, actor_id, card_id, tag, created_at)
                SELECT gen_random_uuid(), r.account_id, 'favorite_tag_used', r.author_id, r.card_id, r.name, now()
                FROM (
                    SELECT DISTINCT ON (f.account_id, c.id) f.account_id, c.author_id, c.id AS card_id, t.name
                    FROM live c
                    JOIN card_tags ct ON ct.card_id = c.id
                    JOIN favorite_tags f ON f.tag_key = ct.tag_key AND f.account_id <> c.author_id
                    JOIN tags t ON t.key = ct.tag_key
                    WHERE \(unescaped: CardRow.notBlocked("f.account_id", "c.author_id"))
                    ORDER BY f.account_id, c.id, ct.tag_key) r
                ON CONFLICT (recipient_id, tag) WHERE type = 'favorite_tag_used' AND NOT read DO NOTHING
                RETURNING 1)
            SELECT (SELECT count(*) FROM batch)::int, (SELECT count(*) FROM tagged)::int
            """)
        let posts = try RowCells.decode(tagged[0], Int.self, Int.self).0
        let claim = UUID()
        let taken = try await self.database.rows(
            """
            UPDATE follower_notification_outbox SET taken_until = now() + interval '60 seconds', taken_by = \(claim)
            WHERE author_id IN (
                SELECT author_id FROM follower_notification_outbox
                WHERE created_at <= now() - interval '2 seconds' AND (taken_until IS NULL OR taken_until < now())
                ORDER BY created_at LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING card_id
            """
        ).map { try RowCells.decode($0, UUID.self) }
        guard !taken.isEmpty else { return posts }
        try await self.database.execute(
            """
            INSERT INTO notifications (id, recipient_id, type, actor_id, card_id, created_at)
            SELECT gen_random_uuid(), f.follower_id, 'following_posted', c.author_id, c.id, now()
            FROM unnest(\(taken)::uuid[]) AS o (card_id)
            JOIN cards c ON c.id = o.card_id AND \(unescaped: CardRow.live)
            JOIN follows f ON f.followee_id = c.author_id
            ON CONFLICT (recipient_id, actor_id) WHERE type = 'following_posted' AND NOT read DO NOTHING
            """)
        try await self.database.execute("DELETE FROM follower_notification_outbox WHERE taken_by = \(claim)")
        return max(posts, taken.count)
    }

    /// Deletes up to `limit` notifications made before `cutoff` (the contract keeps them 30 days),
    /// read or not. Returns how many.
    public func purge(createdBefore cutoff: Date, limit: Int) async throws -> Int {
        try await self.database.purge(.notifications, before: cutoff, limit: limit)
    }
}
