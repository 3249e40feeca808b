import Foundation
import Logging
import PostgresNIO
import SoomDomain

/// What operators do by hand (`soom admin`): hide and unhide cards, restrict and unrestrict
/// accounts, see the most-reported cards and the size of things. Every change is one
/// transaction that keeps the counters exact, in the lock order every card writer uses.
public struct PostgresModeration: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Hides a card as reports would (without restricting its author, which `restrict` does):
    /// it counts nowhere and its author is told. False when there is no such card or it is hidden already.
    public func hide(cardID: UUID) async throws -> Bool {
        let rows = try await self.database.rows("SELECT hide_card(\(cardID), now())")
        return try RowCells.decode(rows[0], UUID?.self) != nil
    }

    /// Shows a hidden card again: it counts once more (tag usage, its parent's comment count or
    /// its author's card count) and its reports are cleared, so hiding it again takes as many new
    /// reporters as the first time. The author's restriction stays (see `unrestrict`). False when
    /// there is no such card or it is not hidden.
    public func unhide(cardID: UUID) async throws -> Bool {
        let logger = self.database.logger
        return try await self.database.transaction { connection in
            try await Self.unhide(cardID: cardID, on: connection, logger: logger) != nil
        }
    }

    /// `unhide` inside a transaction. Returns whether hiding the card had started a restriction
    /// step of its author (nil: no such hidden card).
    static func unhide(cardID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Bool? {
        let author = try await connection.query("SELECT author_id FROM cards WHERE id = \(cardID)", logger: logger).collect()
        guard let authorID = try author.first.map({ try RowCells.decode($0, UUID.self) }) else { return nil }
        try await connection.query("SELECT 1 FROM accounts WHERE id = \(authorID) FOR NO KEY UPDATE", logger: logger)
        let rows = try await connection.query(
            "SELECT parent_id, tags, created_at, hidden_restricted FROM cards WHERE id = \(cardID) AND hidden_at IS NOT NULL FOR UPDATE",
            logger: logger
        ).collect()
        guard let row = rows.first else { return nil }
        let (parentID, names, createdAt, restricted) = try RowCells.decode(row, UUID?.self, [String].self, Date.self, Bool.self)
        let tags = names.compactMap { try? Tag(normalising: $0) }.sorted { $0.key < $1.key }
        try await connection.query(
            """
            WITH shown AS (UPDATE cards SET hidden_at = NULL, hidden_restricted = false WHERE id = \(cardID)),
            parent AS (UPDATE cards SET comment_count = comment_count + 1 WHERE id = \(parentID)),
            author AS (UPDATE accounts SET card_count = card_count + 1 WHERE id = \(authorID) AND \(parentID)::uuid IS NULL),
            reports AS (DELETE FROM reports WHERE card_id = \(cardID))
            SELECT 1
            """, logger: logger)
        // Its tag rows and counts, as when it was posted (keys in order: the lock order of tag rows).
        try await connection.query(
            """
            WITH tagged AS (
                INSERT INTO card_tags (tag_key, card_id, author_id, created_at)
                SELECT k, \(cardID), \(authorID), \(createdAt) FROM unnest(\(tags.map(\.key))::text[]) AS k ON CONFLICT DO NOTHING RETURNING tag_key)
            INSERT INTO tags AS t (key, name, usage_count)
            SELECT u.k, u.n, 1 FROM unnest(\(tags.map(\.key))::text[], \(tags.map(\.name))::text[]) AS u (k, n)
            WHERE u.k IN (SELECT tag_key FROM tagged) ORDER BY u.k COLLATE "C"
            ON CONFLICT (key) DO UPDATE SET usage_count = t.usage_count + 1
            """, logger: logger)
        return restricted
    }

    /// Reporters who hid several cards of one author together: for each author with two or more
    /// such reporters, the reporters who reported at least `minimumCards` of the author's hidden
    /// cards, and how many each. Most reporters first.
    public func rings(minimumCards: Int, limit: Int) async throws -> [ReportRing] {
        let rows = try await self.database.rows(
            """
            WITH pairs AS (
                SELECT c.author_id, r.reporter_id, count(*)::int AS n
                FROM reports r JOIN cards c ON c.id = r.card_id
                WHERE c.hidden_at IS NOT NULL
                GROUP BY c.author_id, r.reporter_id HAVING count(*) >= \(minimumCards))
            SELECT p.author_id, (SELECT count(*) FROM cards h WHERE h.author_id = p.author_id AND h.hidden_at IS NOT NULL)::int,
                   array_agg(p.reporter_id ORDER BY p.n DESC, p.reporter_id), array_agg(p.n ORDER BY p.n DESC, p.reporter_id)
            FROM pairs p GROUP BY p.author_id HAVING count(*) >= 2
            ORDER BY count(*) DESC, p.author_id LIMIT \(limit)
            """)
        return try rows.map { row in
            let (author, hidden, reporters, counts) = try RowCells.decode(row, UUID.self, Int.self, [UUID].self, [Int].self)
            return ReportRing(authorID: author, hiddenCards: hidden, reporters: Array(zip(reporters, counts)).map { ($0.0, $0.1) })
        }
    }

    /// Undoes what `reporters` did together, in one transaction: every hidden card any of them
    /// reported is shown again (its reports cleared, its counts restored, as `unhide`), each
    /// restriction step those hides started is taken back (the author's ladder steps down and a
    /// running restriction is lifted), and all their other reports are deleted, so that they
    /// count toward nothing. Returns the cards shown again and the authors whose restriction was lifted.
    public func undoReports(by reporters: [UUID]) async throws -> (cards: [UUID], authors: [UUID]) {
        let logger = self.database.logger
        return try await self.database.transaction { connection in
            var cards: [UUID] = []
            for try await row in try await connection.query(
                """
                SELECT DISTINCT c.id FROM reports r JOIN cards c ON c.id = r.card_id
                WHERE r.reporter_id = ANY(\(reporters)) AND c.hidden_at IS NOT NULL ORDER BY c.id
                """, logger: logger)
            {
                cards.append(try RowCells.decode(row, UUID.self))
            }
            var steps: [UUID: Int] = [:]
            var shown: [UUID] = []
            for card in cards {
                let author = try await connection.query("SELECT author_id FROM cards WHERE id = \(card)", logger: logger).collect()
                guard let authorID = try author.first.map({ try RowCells.decode($0, UUID.self) }),
                    let restricted = try await Self.unhide(cardID: card, on: connection, logger: logger)
                else { continue }
                shown.append(card)
                if restricted { steps[authorID, default: 0] += 1 }
            }
            for (author, count) in steps {
                try await connection.query(
                    """
                    UPDATE accounts SET restriction_count = greatest(0, restriction_count - \(count)), restricted_until = NULL
                    WHERE id = \(author)
                    """, logger: logger)
            }
            try await connection.query("DELETE FROM reports WHERE reporter_id = ANY(\(reporters))", logger: logger)
            return (shown, steps.keys.sorted { $0.uuidString < $1.uuidString })
        }
    }

    /// Keeps an account from posting until `until` (the later of that and a running restriction,
    /// or exactly `until` with `replace`), and tells it. Nil when there is no such account.
    public func restrict(accountID: UUID, until: Date, replace: Bool) async throws -> Date? {
        let rows = try await self.database.rows("SELECT restrict_account(\(accountID), \(until), now(), \(replace))")
        return try RowCells.decode(rows[0], Date?.self)
    }

    /// Ends an account's restriction now. False when there is no such account.
    public func unrestrict(accountID: UUID) async throws -> Bool {
        let rows = try await self.database.rows("UPDATE accounts SET restricted_until = NULL WHERE id = \(accountID) RETURNING 1")
        return !rows.isEmpty
    }

    /// Reporters who hid several of one author's cards together (`rings`).
    public struct ReportRing: Sendable {
        public let authorID: UUID
        /// The author's hidden cards, however they were hidden.
        public let hiddenCards: Int
        /// Each reporter and how many of the author's hidden cards it reported, most first.
        public let reporters: [(id: UUID, cards: Int)]
    }

    /// A card and what its reporters said.
    public struct ReportedCard: Sendable, Equatable {
        public let cardID: UUID
        public let authorID: UUID
        public let reports: Int
        /// Reports by reason, most frequent first.
        public let reasons: [String: Int]
        public let hidden: Bool
        public let createdAt: Date
        /// The card's first 80 characters.
        public let preview: String
    }

    /// The cards with the most reports (hidden or not), most first, then newest report first.
    public func mostReported(limit: Int) async throws -> [ReportedCard] {
        let rows = try await self.database.rows(
            """
            SELECT c.id, c.author_id, r.n, r.reasons, r.counts, c.hidden_at IS NOT NULL, c.created_at, left(c.content, 80)
            FROM (SELECT card_id, sum(n)::int AS n, array_agg(reason ORDER BY n DESC, reason) AS reasons,
                         array_agg(n ORDER BY n DESC, reason) AS counts, max(latest) AS latest
                  FROM (SELECT card_id, reason, count(*)::int AS n, max(created_at) AS latest FROM reports GROUP BY card_id, reason) per_reason
                  GROUP BY card_id) r
            JOIN cards c ON c.id = r.card_id
            ORDER BY r.n DESC, r.latest DESC LIMIT \(limit)
            """)
        return try rows.map { row in
            let (id, author, count, reasons, counts, hidden, createdAt, preview) =
                try RowCells.decode(row, UUID.self, UUID.self, Int.self, [String].self, [Int].self, Bool.self, Date.self, String.self)
            return ReportedCard(
                cardID: id, authorID: author, reports: count, reasons: Dictionary(uniqueKeysWithValues: zip(reasons, counts)), hidden: hidden,
                createdAt: createdAt, preview: preview)
        }
    }

    /// How big things are: accounts, cards (top-level, comment, hidden, stories), tags in use,
    /// reports, restricted accounts and live sessions. Exact counts: meant for an operator's
    /// terminal, not for a dashboard (use `/metrics` for that).
    public func counts() async throws -> [(name: String, count: Int)] {
        let rows = try await self.database.rows(
            """
            SELECT (SELECT count(*) FROM accounts)::int,
                   (SELECT count(*) FROM accounts WHERE restricted_until > now())::int,
                   (SELECT count(*) FROM sessions WHERE expires_at > now())::int,
                   (SELECT count(*) FROM cards WHERE parent_id IS NULL AND hidden_at IS NULL)::int,
                   (SELECT count(*) FROM cards WHERE parent_id IS NOT NULL AND hidden_at IS NULL)::int,
                   (SELECT count(*) FROM cards WHERE hidden_at IS NOT NULL)::int,
                   (SELECT count(*) FROM cards WHERE expires_at IS NOT NULL AND hidden_at IS NULL)::int,
                   (SELECT count(*) FROM tags WHERE usage_count > 0)::int,
                   (SELECT count(*) FROM reports)::int
            """)
        let values = try RowCells.decode(rows[0], Int.self, Int.self, Int.self, Int.self, Int.self, Int.self, Int.self, Int.self, Int.self)
        return [
            ("accounts", values.0), ("restricted accounts", values.1), ("live sessions", values.2), ("cards", values.3),
            ("comment cards", values.4), ("hidden cards", values.5), ("stories", values.6), ("tags in use", values.7), ("reports", values.8),
        ]
    }
}

extension Database {
    /// Runs `body` on a short-lived pool of `configuration`'s database (for a command-line tool,
    /// `soom admin`), migrated first so that the tables and functions it uses exist.
    public static func administering<T: Sendable>(
        _ configuration: DatabaseConfiguration, logger: Logger, _ body: @escaping @Sendable (Database) async throws -> T
    ) async throws -> T {
        try await DatabaseMigration.run(configuration, logger: logger)
        var configuration = configuration
        configuration.maximumConnections = 2
        let client = PostgresClient(configuration: configuration.clientConfiguration, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            defer { group.cancelAll() }
            return try await body(Database(client: client, logger: logger))
        }
    }
}
