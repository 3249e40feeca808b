import Foundation
import PostgresNIO
import SoomDomain

/// `CardRepository` on PostgreSQL. Writes are single statements (atomic by themselves) or one
/// transaction; counters change in the same statement as the rows they count.
public struct PostgresCardRepository: CardRepository {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    public func create(_ card: NewCard, idempotency: IdempotencyRecord?) async throws -> CreateCardOutcome {
        guard let idempotency else {
            return Self.outcome(of: card, try await self.database.rows(CardStatements.Insert(card: card)))
        }
        let logger = self.database.logger
        let outcome = try await self.database.transaction { connection -> IdempotentCreation in
            let claimed = try await connection.query(
                """
                INSERT INTO idempotency_keys (account_id, key, request, card_id, created_at)
                VALUES (\(card.author.id), \(idempotency.key), \(idempotency.request), \(card.id), \(card.createdAt))
                ON CONFLICT (account_id, key) DO UPDATE
                    SET request = EXCLUDED.request, card_id = EXCLUDED.card_id, created_at = EXCLUDED.created_at
                    WHERE idempotency_keys.created_at <= \(card.createdAt.addingTimeInterval(-IdempotencyRecord.lifetime))
                RETURNING 1
                """, logger: logger
            ).collect()
            if claimed.isEmpty {
                // Seen within 24 hours (the first request has committed: the insert waited for it).
                let rows = try await connection.query(
                    "SELECT request, card_id FROM idempotency_keys WHERE account_id = \(card.author.id) AND key = \(idempotency.key)",
                    logger: logger
                ).collect()
                let (request, cardID) = try RowCells.decode(rows[0], String.self, UUID.self)
                return request == idempotency.request ? .replay(cardID) : .done(.idempotencyKeyReused)
            }
            let outcome = Self.outcome(of: card, try await Database.collect(connection.execute(CardStatements.Insert(card: card), logger: logger)))
            if case .created = outcome { return .done(outcome) }
            // Nothing was created: the key is given back, so that the client's corrected retry can
            // use it. The claim took a free key or one older than its lifetime (which counts as
            // free), so deleting the claim leaves the same state as if it had never been made.
            try await connection.query(
                "DELETE FROM idempotency_keys WHERE account_id = \(card.author.id) AND key = \(idempotency.key)", logger: logger)
            return .done(outcome)
        }
        switch outcome {
        case .done(let outcome):
            return outcome
        case .replay(let cardID):
            guard let card = try await self.card(id: cardID, viewer: card.author.id) else { return .replayedCardGone }
            return .replayed(card)
        }
    }

    private enum IdempotentCreation: Sendable {
        case done(CreateCardOutcome)
        case replay(UUID)
    }

    /// What posting the card came to, from the one row of `CardStatements.Insert` (which says
    /// what it checks, writes and locks).
    private static func outcome(of card: NewCard, _ rows: [CardStatements.Insert.Row]) -> CreateCardOutcome {
        let (inserted, backgroundOK, authorExists, restrictedUntil, _) = rows[0]
        if inserted == 1 { return .created(card.asPosted) }
        if !authorExists { return .authorNotFound }
        if let restrictedUntil { return .authorRestricted(until: restrictedUntil) }
        return backgroundOK ? .parentNotFound : .backgroundNotOwned
    }

    public func card(id: UUID, viewer: UUID) async throws -> Card? {
        try await self.database.first(CardStatements.Detail(viewer: viewer, id: id))?.card
    }

    /// One transaction: the delete with its counters (as one statement), then the release of
    /// its tags. The card's author may delete it, and so may the author of the card a comment card
    /// answers (authors keep their own threads clean). A hidden card can still be deleted by its
    /// author (nobody else sees it); it no longer counted anywhere. The caller's account is locked
    /// first, as every card writer does.
    public func delete(cardID: UUID, by accountID: UUID) async throws -> DeleteCardOutcome {
        let logger = self.database.logger
        let (author, deleted) = try await self.database.transaction { connection in
            let rows = try await connection.query(
                """
                WITH caller AS (SELECT id FROM accounts WHERE id = \(accountID) FOR NO KEY UPDATE),
                target AS (
                    SELECT c.id, c.author_id, p.author_id AS parent_author FROM cards c LEFT JOIN cards p ON p.id = c.parent_id
                    WHERE c.id = \(cardID) AND \(unescaped: CardRow.unexpired)
                      AND (c.hidden_at IS NULL OR c.author_id = \(accountID)) AND EXISTS (SELECT 1 FROM caller)),
                deleted AS (
                    DELETE FROM cards WHERE id IN (SELECT id FROM target WHERE \(accountID) IN (author_id, parent_author))
                    RETURNING parent_id, author_id, cardinality(tags) > 0 AS tagged, hidden_at IS NULL AS counted),
                parent AS (
                    UPDATE cards SET comment_count = comment_count - 1 WHERE id IN (SELECT parent_id FROM deleted WHERE counted)),
                author AS (
                    UPDATE accounts SET card_count = card_count - 1 WHERE id IN (SELECT author_id FROM deleted WHERE parent_id IS NULL AND counted))
                SELECT (SELECT author_id FROM target), (SELECT count(*) FROM deleted)::int, COALESCE((SELECT tagged FROM deleted), false)
                """, logger: logger
            ).collect()
            let (author, deleted, tagged) = try RowCells.decode(rows[0], UUID?.self, Int.self, Bool.self)
            if tagged { try await TagUsageSQL.release(cardIDs: [cardID], on: connection, logger: logger) }
            return (author, deleted)
        }
        if deleted == 1 { return .deleted }
        // Not there, or deleted by a concurrent request of someone allowed to: either way it is gone.
        guard author != nil else { return .notFound }
        return .notOwner
    }

    public func setLike(_ liked: Bool, cardID: UUID, by accountID: UUID) async throws -> LikeState? {
        let row: CardStatements.Like.Row? =
            if liked {
                try await self.database.first(CardStatements.Like(account: accountID, card: cardID))
            } else {
                try await self.database.first(CardStatements.Unlike(account: accountID, card: cardID))
            }
        guard let row, row.exists, let count = row.likeCount else { return nil }
        return LikeState(liked: liked, likeCount: count)
    }
}
