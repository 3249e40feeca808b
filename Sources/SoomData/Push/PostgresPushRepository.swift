import Foundation
import PostgresNIO
import SoomDomain

/// `PushRepository` on PostgreSQL (migration 0027): subscriptions through
/// `save_push_subscription`, the delivery queue in `push_deliveries`, the VAPID key in `server_keys`.
public struct PostgresPushRepository: PushRepository {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    public func subscribe(account: UUID, _ address: PushAddress, limit: Int, at now: Date) async throws -> (
        subscription: PushSubscription, created: Bool
    )? {
        let (value, p256dh, auth) = Self.columns(of: address)
        let (p256dhData, authData) = (p256dh.map { Data($0) }, auth.map { Data($0) })
        let rows = try await self.database.rows(
            """
            SELECT outcome, subscription_id, subscribed_at
            FROM save_push_subscription(\(account), \(UUID()), \(address.kind.rawValue), \(value), \(p256dhData), \(authData), \(now), \(limit)::int)
            """)
        let (outcome, id, createdAt) = try RowCells.decode(rows[0], String.self, UUID?.self, Date?.self)
        switch outcome {
        case "created", "existing":
            guard let id, let createdAt else { return nil }
            return (PushSubscription(id: id, kind: address.kind, createdAt: createdAt), outcome == "created")
        case "no_account":
            throw SoomError.unauthorized
        default:
            return nil
        }
    }

    public func subscriptions(of account: UUID) async throws -> [PushSubscription] {
        try await self.database.rows(
            "SELECT id, kind, created_at FROM push_subscriptions WHERE account_id = \(account) ORDER BY created_at, id"
        ).map { row in
            let (id, kind, createdAt) = try RowCells.decode(row, UUID.self, String.self, Date.self)
            return PushSubscription(id: id, kind: PushKind(rawValue: kind) ?? .webPush, createdAt: createdAt)
        }
    }

    public func unsubscribe(account: UUID, id: UUID) async throws -> Bool {
        !(try await self.database.rows("DELETE FROM push_subscriptions WHERE id = \(id) AND account_id = \(account) RETURNING 1")).isEmpty
    }

    /// One statement: moves up to `limit` due rows a lease ahead (skipping rows another instance
    /// holds), and reads each with its subscription, notification (as the list shows it), the
    /// recipient's settings, and whether a block now stands between actor and recipient.
    public func claimDeliveries(limit: Int, lease: Duration) async throws -> [PushDelivery] {
        let leaseSeconds = Double(lease.components.seconds)
        return try await self.database.rows(
            """
            WITH claimed AS (
                UPDATE push_deliveries d SET due_at = now() + make_interval(secs => \(leaseSeconds)), attempts = d.attempts + 1
                WHERE d.id IN (SELECT id FROM push_deliveries WHERE due_at <= now() ORDER BY due_at LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                RETURNING d.id, d.attempts, d.queued_at, d.subscription_id, d.notification_id)
            SELECT c.id, c.attempts, c.queued_at, ps.id, ps.kind, ps.address, ps.p256dh, ps.auth, n.recipient_id,
                   n.actor_id IS NOT NULL AND NOT \(unescaped: CardRow.notBlocked("n.recipient_id", "n.actor_id")),
                   \(unescaped: PostgresNotificationRepository.columns), \(unescaped: PostgresNotificationRepository.settingsColumns)
            FROM claimed c
            JOIN push_subscriptions ps ON ps.id = c.subscription_id
            JOIN notifications n ON n.id = c.notification_id
            LEFT JOIN accounts a ON a.id = n.actor_id AND n.type <> 'card_liked'
            LEFT JOIN notification_settings s ON s.account_id = n.recipient_id
            """
        ).map { row in
            var cells = RowCells(row)
            let id = try cells.next(Int64.self)
            let attempt = try cells.next(Int32.self)
            let queuedAt = try cells.next(Date.self)
            let subscriptionID = try cells.next(UUID.self)
            let kind = try cells.next(String.self)
            let value = try cells.next(String.self)
            let p256dh = try cells.next(Data?.self).map { Array($0) }
            let auth = try cells.next(Data?.self).map { Array($0) }
            let recipient = try cells.next(UUID.self)
            let blocked = try cells.next(Bool.self)
            let notification = try PostgresNotificationRepository.notification(&cells)
            let settings = try PostgresNotificationRepository.settings(&cells)
            let address: PushAddress =
                switch kind {
                case "fcm": .fcm(token: value)
                case "apns": .apns(token: value)
                default: .webPush(endpoint: value, p256dh: p256dh ?? [], auth: auth ?? [])
                }
            return PushDelivery(
                id: id, attempt: Int(attempt), queuedAt: queuedAt, subscriptionID: subscriptionID, address: address, recipient: recipient,
                notification: notification, settings: settings, blocked: blocked)
        }
    }

    /// One statement: deletes the deliveries done and the subscriptions gone, and moves the rest
    /// to their next attempt — each only while its attempt count is still the claim's.
    public func complete(_ completions: [PushCompletion]) async throws {
        guard !completions.isEmpty else { return }
        var ids: [Int64] = []
        var attempts: [Int32] = []
        var results: [String] = []
        var dues: [Date] = []  // read only for 'again'
        var subscriptions: [UUID] = []
        for completion in completions {
            ids.append(completion.id)
            attempts.append(Int32(completion.attempt))
            subscriptions.append(completion.subscriptionID)
            switch completion.result {
            case .done:
                results.append("done")
                dues.append(.distantPast)
            case .gone:
                results.append("gone")
                dues.append(.distantPast)
            case .again(let at):
                results.append("again")
                dues.append(at)
            }
        }
        try await self.database.execute(
            """
            WITH outcome AS (
                SELECT * FROM unnest(\(ids)::bigint[], \(attempts)::int[], \(results)::text[], \(dues)::timestamptz[], \(subscriptions)::uuid[])
                    AS o (id, attempt, result, due, subscription_id)),
            gone AS (
                DELETE FROM push_subscriptions s USING outcome o, push_deliveries d
                WHERE o.result = 'gone' AND d.id = o.id AND d.attempts = o.attempt AND s.id = o.subscription_id),
            done AS (
                DELETE FROM push_deliveries d USING outcome o
                WHERE o.result = 'done' AND d.id = o.id AND d.attempts = o.attempt)
            UPDATE push_deliveries d SET due_at = o.due FROM outcome o
            WHERE o.result = 'again' AND d.id = o.id AND d.attempts = o.attempt
            """)
    }

    public func queue() async throws -> (depth: Int, oldest: Date?) {
        let rows = try await self.database.rows("SELECT count(*)::int, min(queued_at) FROM push_deliveries")
        return try RowCells.decode(rows[0], Int.self, Date?.self)
    }

    /// Inserts the made key unless one is stored, and reads the stored one. Two instances making
    /// theirs at once: the loser's statement may see neither row (its snapshot predates the
    /// winner's commit), so it asks again.
    public func vapidKey(orMake make: @Sendable () -> [UInt8]) async throws -> [UInt8] {
        for _ in 0..<5 {
            let rows = try await self.database.rows(
                """
                WITH made AS (
                    INSERT INTO server_keys (name, secret, created_at) VALUES ('vapid', \(Data(make())), now())
                    ON CONFLICT (name) DO NOTHING RETURNING secret)
                SELECT secret FROM made UNION ALL SELECT secret FROM server_keys WHERE name = 'vapid'
                """)
            if let row = rows.first { return Array(try RowCells.decode(row, Data.self)) }
        }
        throw SoomError.databaseUnavailable(reason: "the VAPID key could not be stored or read")
    }

    /// The address as the table keeps it: endpoint or token, and the browser's keys.
    static func columns(of address: PushAddress) -> (String, [UInt8]?, [UInt8]?) {
        switch address {
        case .webPush(let endpoint, let p256dh, let auth): (endpoint, p256dh, auth)
        case .fcm(let token): (token, nil, nil)
        case .apns(let token): (token, nil, nil)
        }
    }
}
