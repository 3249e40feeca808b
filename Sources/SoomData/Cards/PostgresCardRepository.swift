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
                let (request, cardID) = try rows[0].decode((String, UUID).self)
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
            let (author, deleted, tagged) = try rows[0].decode((UUID?, Int, Bool).self)
            if tagged { try await TagUsageSQL.release(cardIDs: [cardID], on: connection, logger: logger) }
            return (author, deleted)
        }
        if deleted == 1 { return .deleted }
        // Not there, or deleted by a concurrent request of someone allowed to: either way it is gone.
        guard author != nil else { return .notFound }
        return .notOwner
    }

    public func setLike(_ liked: Bool, cardID: UUID, by accountID: UUID) async throws -> LikeState? {
        // Likes are private: the author's `card_liked` notification keeps who liked only to keep one
        // unread per liker and to take it back when the like is withdrawn (`unnotified`); it is
        // never shown (`PostgresNotificationRepository.page`).
        // `$1` the account, `$2` the card. The target is a live card whose author and the account
        // did not block one another: `CardRow`'s predicates, the ones every read uses.
        let target = """
            WITH target AS (
                SELECT id, like_count, author_id FROM cards c
                WHERE c.id = $2::uuid AND \(CardRow.live) AND \(CardRow.notBlocked("$1::uuid", "c.author_id"))),
            """
        let change =
            liked
            ? """
            added AS (
                INSERT INTO likes (card_id, account_id, created_at) SELECT id, $1::uuid, now() FROM target
                ON CONFLICT DO NOTHING RETURNING card_id),
            counted AS (UPDATE cards SET like_count = like_count + 1 WHERE id IN (SELECT card_id FROM added) RETURNING like_count),
            notified AS (
                INSERT INTO notifications (id, recipient_id, type, actor_id, card_id, created_at)
                SELECT gen_random_uuid(), t.author_id, 'card_liked', $1::uuid, t.id, now() FROM target t
                WHERE t.author_id <> $1::uuid AND EXISTS (SELECT 1 FROM added)
                ON CONFLICT (recipient_id, actor_id, card_id) WHERE type = 'card_liked' AND NOT read DO NOTHING)
            """
            : """
            removed AS (
                DELETE FROM likes WHERE card_id IN (SELECT id FROM target) AND account_id = $1::uuid RETURNING card_id),
            counted AS (UPDATE cards SET like_count = like_count - 1 WHERE id IN (SELECT card_id FROM removed) RETURNING like_count),
            unnotified AS (
                DELETE FROM notifications n USING target t
                WHERE n.recipient_id = t.author_id AND n.actor_id = $1::uuid AND n.card_id = t.id
                  AND n.type = 'card_liked' AND NOT n.read AND EXISTS (SELECT 1 FROM removed))
            """
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(accountID)
        bindings.append(cardID)
        let rows = try await self.database.rows(
            PostgresQuery(
                unsafeSQL: target + "\n" + change + "\n"
                    + "SELECT EXISTS (SELECT 1 FROM target), COALESCE((SELECT like_count FROM counted), (SELECT like_count FROM target))",
                binds: bindings))
        let (exists, count) = try rows[0].decode((Bool, Int?).self)
        guard exists, let count else { return nil }
        return LikeState(liked: liked, likeCount: count)
    }
}
