import Foundation
import PostgresNIO
import SoomDomain

extension CardStatements {
    /// A ballot cast, changed or withdrawn (`choices` 0) and the poll's counters moved, in one call
    /// of `cast_ballot` (migration 0024), which locks the voter's account and then the card and
    /// only then reads the earlier ballot: exact under any concurrency. One row: the outcome, and
    /// for `ok` the poll as it is after the change with the voter's choices, in `CardRow.poll`'s
    /// columns (open: a closed poll takes no ballot).
    struct CastBallot: NamedStatement {
        static let sql: String = {
            var parameters = Parameters()
            let (card, voter, choices) = (parameters.next(), parameters.next(), parameters.next())
            return """
                SELECT outcome, options, multiple, votes, voters, closes_at, false, choices::int2
                FROM cast_ballot(\(card)::uuid, \(voter)::uuid, \(choices)::int)
                """
        }()
        typealias Row = VoteOutcome

        let card: UUID
        let voter: UUID
        let ballot: Ballot

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(self.card)
            bindings.append(self.voter)
            bindings.append(self.ballot.bits)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            var cells = RowCells(row)
            switch try cells.next(String.self) {
            case "ok":
                return try CardRow.decodePoll(&cells).map(VoteOutcome.voted) ?? .notFound
            case "author": return .author
            case "closed": return .closed
            case "invalid": return .invalid
            default: return .notFound
            }
        }
    }
}

extension PostgresCardRepository {
    public func vote(_ ballot: Ballot, cardID: UUID, by voter: UUID) async throws -> VoteOutcome {
        try await self.database.first(CardStatements.CastBallot(card: cardID, voter: voter, ballot: ballot)) ?? .notFound
    }

    /// One transaction: the authors and voters of up to `limit` due polls locked first (accounts
    /// before cards, the order of every card writer: a withdrawal holds its account while it takes
    /// its ballots back), then those polls closed, each by one instance (`SKIP LOCKED`), with their
    /// `poll_closed` notifications. A hidden card's poll closes without telling anyone (no one may
    /// see it); a story's poll that closes with its story is told without the card, which is gone.
    public func closeDuePolls(limit: Int) async throws -> [UUID] {
        let logger = self.database.logger
        return try await self.database.transaction { connection in
            try await connection.query(
                """
                WITH due AS (
                    SELECT id, author_id FROM cards WHERE poll_closed_at IS NULL AND poll_closes_at <= now()
                    ORDER BY poll_closes_at LIMIT \(limit))
                SELECT 1 FROM accounts WHERE id IN (
                    SELECT author_id FROM due UNION SELECT b.account_id FROM poll_ballots b WHERE b.card_id IN (SELECT id FROM due))
                ORDER BY id FOR KEY SHARE
                """, logger: logger)
            let rows = try await connection.query(
                """
                WITH due AS (
                    SELECT c.id, c.author_id, c.hidden_at IS NULL AS shown,
                           c.expires_at IS NOT NULL AND c.expires_at <= c.poll_closes_at AS with_story
                    FROM cards c WHERE c.poll_closed_at IS NULL AND c.poll_closes_at <= now()
                    ORDER BY c.poll_closes_at LIMIT \(limit) FOR NO KEY UPDATE SKIP LOCKED),
                closed AS (UPDATE cards c SET poll_closed_at = now() FROM due d WHERE c.id = d.id RETURNING c.id),
                recipients AS (
                    SELECT d.id, d.with_story, d.author_id AS account_id FROM due d WHERE d.shown
                    UNION SELECT d.id, d.with_story, b.account_id FROM due d JOIN poll_ballots b ON b.card_id = d.id WHERE d.shown),
                notified AS (
                    INSERT INTO notifications (id, recipient_id, type, card_id, created_at)
                    SELECT gen_random_uuid(), r.account_id, 'poll_closed', CASE WHEN r.with_story THEN NULL ELSE r.id END, now()
                    FROM recipients r RETURNING 1)
                SELECT ARRAY(SELECT id FROM closed), (SELECT count(*) FROM notified)::int
                """, logger: logger
            ).collect()
            let (closed, notified) = try RowCells.decode(rows[0], [UUID].self, Int.self)
            if !closed.isEmpty { logger.debug("polls closed", metadata: ["polls": "\(closed.count)", "notified": "\(notified)"]) }
            return closed
        }
    }
}
