import Foundation
import PostgresNIO
import SoomDomain

/// `ViewRepository` on PostgreSQL (migration 0022): a batch of card views and profile visits, each
/// kind one transaction of two statements. The pairs' rows are locked in id order first (cards
/// `FOR NO KEY UPDATE`, the owners' accounts likewise), so batches from several instances, likes
/// and comment cards never deadlock on them; the insertion and the counter move in one statement,
/// so a counter is the number of its pairs at every moment.
///
/// A reader (or card, or owner) gone between the snapshot and the insertion (a withdrawal holds its
/// account's row until it commits) fails the batch's foreign key; the batch is then written again
/// without it, up to three times.
public struct PostgresViews: ViewRepository {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    public func record(_ batch: ViewLog.Batch) async throws {
        if !batch.cardViews.isEmpty { try await Self.retryingVanished { try await self.recordCardViews(batch.cardViews) } }
        if !batch.profileVisits.isEmpty { try await Self.retryingVanished { try await self.recordProfileVisits(batch.profileVisits) } }
    }

    private func recordCardViews(_ pairs: Set<ViewLog.Pair>) async throws {
        let (cards, readers) = (pairs.map(\.target), pairs.map(\.reader))
        let logger = self.database.logger
        try await self.database.transaction { connection in
            try await connection.query(
                "SELECT 1 FROM cards WHERE id = ANY(\(Array(Set(cards)))::uuid[]) ORDER BY id FOR NO KEY UPDATE", logger: logger)
            try await connection.query(
                """
                WITH inserted AS (
                    INSERT INTO card_views (card_id, viewer_id)
                    SELECT v.card_id, v.viewer_id FROM unnest(\(cards)::uuid[], \(readers)::uuid[]) AS v(card_id, viewer_id)
                    JOIN cards c ON c.id = v.card_id AND c.author_id <> v.viewer_id
                    JOIN accounts a ON a.id = v.viewer_id
                    ON CONFLICT DO NOTHING
                    RETURNING card_id)
                UPDATE cards c SET view_count = c.view_count + n.views
                FROM (SELECT card_id, count(*)::int AS views FROM inserted GROUP BY card_id) n
                WHERE c.id = n.card_id
                """, logger: logger)
        }
    }

    /// A visit of a new visitor raises the owner's `visit_count`; the first visit of a visitor on a
    /// UTC day raises `visits_today` (restarted at 0 on a new day).
    private func recordProfileVisits(_ pairs: Set<ViewLog.Pair>) async throws {
        let (owners, visitors) = (pairs.map(\.target), pairs.map(\.reader))
        let logger = self.database.logger
        try await self.database.transaction { connection in
            try await connection.query(
                "SELECT 1 FROM accounts WHERE id = ANY(\(Array(Set(owners)))::uuid[]) ORDER BY id FOR NO KEY UPDATE", logger: logger)
            try await connection.query(
                """
                WITH today AS (SELECT (now() AT TIME ZONE 'UTC')::date AS day),
                upserted AS (
                    INSERT INTO profile_visits AS p (owner_id, visitor_id, last_day)
                    SELECT v.owner_id, v.visitor_id, today.day
                    FROM unnest(\(owners)::uuid[], \(visitors)::uuid[]) AS v(owner_id, visitor_id)
                    JOIN accounts o ON o.id = v.owner_id JOIN accounts w ON w.id = v.visitor_id, today
                    WHERE v.owner_id <> v.visitor_id
                    ON CONFLICT (owner_id, visitor_id) DO UPDATE SET last_day = excluded.last_day WHERE p.last_day < excluded.last_day
                    RETURNING p.owner_id, (xmax = 0) AS first)
                UPDATE accounts a SET
                    visit_count = a.visit_count + n.first,
                    visits_today = CASE WHEN a.visits_day = today.day THEN a.visits_today ELSE 0 END + n.today,
                    visits_day = today.day
                FROM (SELECT owner_id, (count(*) FILTER (WHERE first))::int AS first, count(*)::int AS today FROM upserted GROUP BY owner_id) n, today
                WHERE a.id = n.owner_id
                """, logger: logger)
        }
    }

    /// Runs `write` again when a row it references vanished meanwhile (23503), at most three times.
    private static func retryingVanished(_ write: () async throws -> Void) async throws {
        for attempt in 1...3 {
            do {
                return try await write()
            } catch let error as PSQLError where error.code == .server && error.serverInfo?[.sqlState] == "23503" && attempt < 3 {
                continue
            }
        }
    }
}
