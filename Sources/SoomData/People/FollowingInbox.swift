import Foundation
import PostgresNIO

/// The upkeep of the following inboxes (migration 0013; read by `FollowingStatements`), for the
/// `following-inbox` job.
///
/// The follow that brings a reader to `FollowingStatements.wideFollowing` follows opens their
/// inbox: from then on, every post by an account they follow writes a row for them. `fill` makes an
/// opened inbox ready once `grace` has passed — by then every post that began before the opening
/// has committed or been ended by its deadline — by copying the cards of the last `horizon` by the
/// accounts the reader follows, and moving `inbox_since` down to that edge. From then on the
/// reader's pages come from the inbox. `trim` keeps every inbox within `horizon`.
///
/// Safe with several instances: each reader is taken with `FOR NO KEY UPDATE SKIP LOCKED`, the
/// lock every follow of theirs takes first.
public struct FollowingInbox: Sendable {
    /// How far back an inbox reaches. Older pages of the following feed are read by fan-out on read.
    public static let horizon: TimeInterval = 7 * 24 * 3600
    /// How far past `horizon` an edge may fall behind before `trim` moves it (so that each reader's
    /// row is updated about once an hour, not on every round).
    public static let slack: TimeInterval = 3600

    let database: Database
    /// How long after its opening an inbox is filled: the request deadline and a margin.
    public let grace: TimeInterval

    public init(database: Database) {
        self.database = database
        self.grace = Double(database.deadline.nanoseconds) / 1e9 + 5
    }

    /// Fills and makes ready every inbox opened more than `grace` before `now`, one reader per
    /// transaction, at most `limit`; how many it made ready.
    @discardableResult
    public func fill(now: Date = Date(), limit: Int = 100) async throws -> Int {
        var ready = 0
        while ready < limit {
            let filled = try await self.database.transaction { connection -> Bool in
                let logger = self.database.logger
                let due = try await connection.query(
                    """
                    SELECT id, inbox_since FROM accounts
                    WHERE inbox_since IS NOT NULL AND NOT inbox_ready AND inbox_since < \(now.addingTimeInterval(-self.grace))
                    ORDER BY inbox_since LIMIT 1 FOR NO KEY UPDATE SKIP LOCKED
                    """, logger: logger
                ).collect()
                guard let row = due.first else { return false }
                let (reader, opened) = try RowCells.decode(row, UUID.self, Date.self)
                let since = opened.addingTimeInterval(-Self.horizon)
                // A statement of its own: its snapshot sees every follow that committed before the lock.
                try await connection.query(
                    """
                    INSERT INTO following_inbox (reader_id, created_at, card_id, author_id)
                    SELECT \(reader), c.created_at, c.id, c.author_id
                    FROM follows f JOIN cards c ON c.author_id = f.followee_id AND c.parent_id IS NULL AND c.created_at >= \(since)
                    WHERE f.follower_id = \(reader)
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
                try await connection.query(
                    "UPDATE accounts SET inbox_since = \(since), inbox_ready = true WHERE id = \(reader)", logger: logger)
                return true
            }
            guard filled else { break }
            ready += 1
        }
        return ready
    }

    /// Moves the lower edge of every ready inbox that fell more than `slack` behind `horizon` up to
    /// it, then deletes, `limit` at a time, the rows below every ready inbox's edge; how many rows
    /// it deleted.
    @discardableResult
    public func trim(now: Date = Date(), limit: Int = 10_000) async throws -> Int {
        let edge = now.addingTimeInterval(-Self.horizon)
        while try await self.database.rows(
            """
            WITH due AS (
                SELECT id FROM accounts WHERE inbox_ready AND inbox_since < \(edge.addingTimeInterval(-Self.slack))
                ORDER BY inbox_since LIMIT \(limit) FOR NO KEY UPDATE SKIP LOCKED)
            UPDATE accounts a SET inbox_since = \(edge) FROM due WHERE a.id = due.id RETURNING 1
            """
        ).count == limit {}
        // Below the lowest edge of any ready inbox (one a follow held locked above keeps its rows),
        // and below where `fill` copies from for inboxes opened since.
        var deleted = 0
        while true {
            let rows = try await self.database.rows(
                """
                DELETE FROM following_inbox WHERE ctid = ANY (ARRAY(
                    SELECT ctid FROM following_inbox
                    WHERE created_at < least(\(edge.addingTimeInterval(-Self.slack)),
                                             (SELECT min(inbox_since) FROM accounts WHERE inbox_ready))
                    LIMIT \(limit)))
                RETURNING 1
                """)
            deleted += rows.count
            if rows.count < limit { return deleted }
        }
    }
}
