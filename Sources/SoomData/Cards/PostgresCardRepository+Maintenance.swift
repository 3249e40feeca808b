import Foundation
import PostgresNIO
import SoomDomain

extension PostgresCardRepository {
    /// One round of `PopularRankingStatements`: from the candidates, or a rescan of the week when
    /// `rescan` is set, one is due or the candidates do not hold the ranking.
    public func refreshPopularRanking(limit: Int, rescan: Bool) async throws {
        // One instance at a time; the others skip this round.
        try await self.database.transaction(holding: .popularRanking) { connection in
            let logger = self.database.logger
            typealias Statements = PopularRankingStatements
            let fetch = Statements.candidateCount(limit: limit) + 1
            var fromCandidates: Statements.Round?
            if !rescan, let last = try await connection.query(Statements.lastRound, logger: logger).collect().first {
                var cells = RowCells(last)
                let due = try cells.next(Bool.self)
                let score = try cells.next(Int?.self)
                let micros = try cells.next(Int64?.self)
                let threshold = try cells.next(UUID?.self).map { Statements.Ranked(id: $0, score: score ?? 0, micros: micros ?? 0) }
                if !due {
                    let ranked = try await connection.query(Statements.fromCandidates(fetch: fetch), logger: logger).collect().map(Statements.decode)
                    fromCandidates = Statements.Round(ranked: ranked, above: threshold, limit: limit)
                    if fromCandidates == nil {
                        logger.debug(
                            "popular ranking: too few candidates above the threshold, rescanning", metadata: ["candidates": "\(ranked.count)"])
                    }
                }
            }
            let round: Statements.Round
            let rescanned = fromCandidates == nil
            if let fromCandidates {
                round = fromCandidates
            } else {
                let ranked = try await connection.query(Statements.rescan(fetch: fetch), logger: logger).collect().map(Statements.decode)
                round = Statements.Round(rescanned: ranked, limit: limit)
            }
            try await connection.query(Statements.insertGeneration(round.ranking), logger: logger)
            try await connection.query(Statements.storeCandidates(round, rescanned: rescanned), logger: logger)
            try await connection.query(Statements.deleteOldGenerations, logger: logger)
        }
    }

    /// A story may go once its poll, if any, has been closed and told (`closeDuePolls`): its voters
    /// hear of it even though the story expires with its poll.
    static let pollTold = "(poll_options IS NULL OR poll_closed_at IS NOT NULL)"

    /// One transaction: deletes the expired stories with their counters, then releases their
    /// tags (within a minute of expiry: the job runs every 30 seconds).
    public func sweepExpiredStories(limit: Int) async throws -> Int {
        let logger = self.database.logger
        return try await self.database.transaction { connection in
            // The lock order of every card writer: accounts first (in id order), then cards. A
            // withdrawal holds its account while it deletes that account's cards; taking a story's
            // card first and its author second could wait on it in the opposite order.
            try await connection.query(
                """
                SELECT 1 FROM accounts WHERE id IN (
                    SELECT author_id FROM cards WHERE expires_at <= now() AND \(unescaped: Self.pollTold)
                    ORDER BY expires_at LIMIT \(limit))
                ORDER BY id FOR NO KEY UPDATE
                """, logger: logger)
            let rows = try await connection.query(
                """
                WITH expired AS (
                    SELECT id FROM cards WHERE expires_at <= now() AND \(unescaped: Self.pollTold)
                    ORDER BY expires_at LIMIT \(limit) FOR UPDATE SKIP LOCKED),
                deleted AS (
                    DELETE FROM cards WHERE id IN (SELECT id FROM expired)
                    RETURNING id, parent_id, author_id, cardinality(tags) > 0 AS tagged, hidden_at IS NULL AS counted),
                parents AS (
                    UPDATE cards p SET comment_count = p.comment_count - d.n
                    FROM (SELECT parent_id, count(*) AS n FROM deleted WHERE parent_id IS NOT NULL AND counted GROUP BY parent_id) d
                    WHERE p.id = d.parent_id AND p.id NOT IN (SELECT id FROM expired)),
                authors AS (
                    UPDATE accounts a SET card_count = a.card_count - d.n
                    FROM (SELECT author_id, count(*) AS n FROM deleted WHERE parent_id IS NULL AND counted GROUP BY author_id) d
                    WHERE a.id = d.author_id)
                SELECT (SELECT count(*)::int FROM deleted), ARRAY(SELECT id FROM deleted WHERE tagged)
                """, logger: logger
            ).collect()
            let (count, tagged) = try RowCells.decode(rows[0], Int.self, [UUID].self)
            try await TagUsageSQL.release(cardIDs: tagged, on: connection, logger: logger)
            return count
        }
    }
}
