import Foundation
import PostgresNIO
import SoomDomain

extension PostgresOperators {
    /// What posting an operator card came to.
    public enum OperatorCardOutcome: Sendable, Equatable {
        /// The card's id; pinned or not as asked.
        case posted(UUID)
        /// The operator account is restricted from posting until then (its cards were hidden after
        /// reports, as anyone's may be).
        case restricted(until: Date?)
    }

    /// The built-in operator account (`isOperator`), made on first use with the reserved name
    /// `Nickname.operatorName` and a key no device has: its "public key" is a byte that no parser
    /// takes and its fingerprint random, so no signature can ever sign in as it.
    public func operatorAccount() async throws -> UserSummary {
        let name = Nickname.operatorName
        let fingerprint = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        let rows = try await self.database.rows(
            """
            WITH made AS (
                INSERT INTO accounts (id, key_fingerprint, public_key, nickname, nickname_key, created_at, is_operator)
                VALUES (gen_random_uuid(), \(fingerprint), '\\x00', \(name), \(Nickname.key(for: name)), now(), true)
                ON CONFLICT DO NOTHING RETURNING id, nickname)
            SELECT id, nickname FROM made UNION ALL SELECT id, nickname FROM accounts WHERE is_operator LIMIT 1
            """)
        let (id, nickname) = try RowCells.decode(rows[0], UUID.self, String.self)
        return UserSummary(id: id, nickname: nickname, profileImage: nil, isOperator: true)
    }

    /// Posts `draft` as the operator account, pinned to the top of the latest feed's first page
    /// until `pinUntil` when given: the card and its pin in one transaction, through the statement
    /// every post uses (its counters, tags and followers' inboxes).
    public func postOperatorCard(_ draft: CardDraft, pinUntil: Date?) async throws -> OperatorCardOutcome {
        let author = try await self.operatorAccount()
        let card = NewCard(id: UUID(), author: author, parentID: nil, draft: draft, createdAt: Date().stamp)
        let logger = self.database.logger
        return try await self.database.transaction { connection in
            let rows = try await Database.collect(connection.execute(CardStatements.Insert(card: card), logger: logger))
            guard let row = rows.first, row.inserted == 1 else { return .restricted(until: rows.first?.restrictedUntil) }
            if let pinUntil {
                try await connection.query("UPDATE cards SET pinned_until = \(pinUntil) WHERE id = \(card.id)", logger: logger)
            }
            return .posted(card.id)
        }
    }

    /// The pinned live cards `c` now (`cards_pinned_idx`), as the feed and `pinnedCards` read them.
    static let pinnedNow = "c.pinned_until IS NOT NULL AND c.pinned_until > now() AND \(CardRow.live)"

    /// Ends the pin of an operator card; false when no such card is pinned.
    public func unpin(cardID: UUID) async throws -> Bool {
        let rows = try await self.database.rows(
            "UPDATE cards SET pinned_until = NULL WHERE id = \(cardID) AND pinned_until IS NOT NULL RETURNING 1")
        return !rows.isEmpty
    }

    /// The operator cards pinned now and later (the feed shows the newest `Pinned.shown` live
    /// ones): id, pin's end, and the card's first line.
    public func pinnedCards() async throws -> [(id: UUID, until: Date, content: String)] {
        try await self.database.rows(
            """
            SELECT c.id, c.pinned_until, c.content FROM cards c
            WHERE \(unescaped: Self.pinnedNow) ORDER BY c.created_at DESC, c.id DESC
            """
        ).map { row in
            let (id, until, content) = try RowCells.decode(row, UUID.self, Date.self, String.self)
            return (id, until, content)
        }
    }
}
