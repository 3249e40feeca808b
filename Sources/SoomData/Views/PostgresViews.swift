import Foundation
import PostgresNIO
import SoomDomain

/// `ViewRepository` on PostgreSQL (migration 0022): a batch of card views and profile visits, in
/// chunks of at most `chunk` pairs, each kind one transaction per chunk. The readers' accounts are
/// locked first (`FOR KEY SHARE`, in id order: a withdrawal, which locks its account `FOR UPDATE`
/// before anything else, is waited for, and its reader is then gone from the batch), then the
/// counted rows in id order (cards, or the owners' accounts, `FOR NO KEY UPDATE`), so batches from
/// several instances, likes and comment cards never deadlock on them; the insertion and the counter
/// move in one statement, so a counter is the number of its pairs at every moment. (A withdrawal
/// correcting the counts of many cards at once may still meet a batch in another order; PostgreSQL
/// then ends one of the two, and it is run again: `Database` retries a deadlock, `ViewFlushJob` a
/// batch.)
///
/// A row gone between the snapshot and the insertion fails the batch's foreign key; the chunk is
/// then written again without it, up to three times.
public struct PostgresViews: ViewRepository {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Pairs written in one transaction at most: a batch that grew while the database was away is
    /// written in parts, each well within a request's deadline.
    static let chunk = 5_000

    public func record(_ batch: ViewLog.Batch) async throws {
        for part in Self.chunks(of: batch.cardViews) { try await Self.retryingVanished { try await self.recordCardViews(part) } }
        for part in Self.chunks(of: batch.profileVisits) { try await Self.retryingVanished { try await self.recordProfileVisits(part) } }
    }

    private static func chunks(of pairs: Set<ViewLog.Pair>) -> [[ViewLog.Pair]] {
        let all = Array(pairs)
        return stride(from: 0, to: all.count, by: Self.chunk).map { Array(all[$0..<min($0 + Self.chunk, all.count)]) }
    }

    private func recordCardViews(_ pairs: [ViewLog.Pair]) async throws {
        let (cards, readers) = (pairs.map(\.target), pairs.map(\.reader))
        let logger = self.database.logger
        try await self.database.transaction { connection in
            try await Self.lockReaders(readers, on: connection, logger: logger)
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
    /// UTC day raises `visits_today` (restarted at 0 on a new day). The day is the statement's, taken
    /// after the locks; a batch of an earlier day that waited past midnight never moves an owner's
    /// day back.
    private func recordProfileVisits(_ pairs: [ViewLog.Pair]) async throws {
        let (owners, visitors) = (pairs.map(\.target), pairs.map(\.reader))
        let logger = self.database.logger
        try await self.database.transaction { connection in
            try await Self.lockReaders(visitors, on: connection, logger: logger)
            try await connection.query(
                "SELECT 1 FROM accounts WHERE id = ANY(\(Array(Set(owners)))::uuid[]) ORDER BY id FOR NO KEY UPDATE", logger: logger)
            try await connection.query(
                """
                WITH today AS (SELECT (statement_timestamp() AT TIME ZONE 'UTC')::date AS day),
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
                    visits_today = CASE WHEN a.visits_day = today.day THEN a.visits_today + n.today
                                        WHEN a.visits_day > today.day THEN a.visits_today
                                        ELSE n.today END,
                    visits_day = GREATEST(a.visits_day, today.day)
                FROM (SELECT owner_id, (count(*) FILTER (WHERE first))::int AS first, count(*)::int AS today FROM upserted GROUP BY owner_id) n, today
                WHERE a.id = n.owner_id
                """, logger: logger)
        }
    }

    /// Locks the readers' accounts `FOR KEY SHARE` in id order (see the type's description).
    private static func lockReaders(_ readers: [UUID], on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "SELECT 1 FROM accounts WHERE id = ANY(\(Array(Set(readers)))::uuid[]) ORDER BY id FOR KEY SHARE", logger: logger)
    }

    /// Runs `write` again when a row it references vanished meanwhile, at most three times: the
    /// foreign-key violation (23503) as PostgreSQL reports it, or as `Database` maps it for a
    /// request (`unauthorized` for a reader, `not_found` for a card).
    private static func retryingVanished(_ write: () async throws -> Void) async throws {
        for attempt in 1...3 {
            do {
                return try await write()
            } catch let error as PSQLError where error.code == .server && error.serverInfo?[.sqlState] == "23503" && attempt < 3 {
                continue
            } catch let error as SoomError where (error == .unauthorized || error == .cardNotFound) && attempt < 3 {
                continue
            }
        }
    }
}
