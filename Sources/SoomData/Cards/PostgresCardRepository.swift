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
            return try await Self.insert(card, run: { try await self.database.rows($0) })
        }
        let logger = self.database.logger
        let outcome: IdempotentCreation
        do {
            outcome = try await self.database.transaction { connection in
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
            let outcome = try await Self.insert(card, run: { try await connection.query($0, logger: logger).collect() })
            // Nothing was created: give the key back by rolling back.
            if case .created = outcome { return .done(outcome) }
            throw NotCreated(outcome: outcome)
        }
        } catch let notCreated as NotCreated {
            return notCreated.outcome
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

    private struct NotCreated: Error {
        let outcome: CreateCardOutcome
    }

    /// One statement: checks that the author may post (not restricted), the background's owner and the parent's liveness (and that neither
    /// the author nor the parent's author blocked the other), counts the comment card on its parent
    /// or the card on its author, inserts, records its tags (`card_tags` rows, `tags.usage_count`
    /// + 1 each), notifies the parent's author, and queues the favourite-tag notifications when
    /// another account favours one of the tags — all or nothing.
    ///
    /// Lock order (see `TagUsageSQL`): the author's account first (`author`, which every other
    /// part waits for through `background_ok`), then the parent card, then tag rows in key order.
    private static func insert(_ card: NewCard, run: (PostgresQuery) async throws -> [PostgresRow]) async throws -> CreateCardOutcome {
        let draft = card.draft
        let background = AccountRow.columns(of: draft.background.reference)
        let uploadID: UUID? = if case .upload(let id) = draft.background { UUID(uuidString: id) } else { nil }
        let tags = draft.tags.sorted { $0.key < $1.key }
        let rows = try await run(
            """
            WITH author AS (SELECT id, restricted_until FROM accounts WHERE id = \(card.author.id) FOR NO KEY UPDATE),
            restriction AS (SELECT restricted_until AS until FROM author WHERE restricted_until > now()),
            background_ok AS (
                SELECT EXISTS (SELECT 1 FROM author) AND NOT EXISTS (SELECT 1 FROM restriction) AND (\(background.kind) = 'default'
                    OR EXISTS (SELECT 1 FROM images WHERE id = \(uploadID) AND owner_id = \(card.author.id))) AS ok),
            parent AS (
                UPDATE cards p SET comment_count = p.comment_count + 1
                WHERE p.id = \(card.parentID) AND (p.expires_at IS NULL OR p.expires_at > now()) AND p.hidden_at IS NULL
                  AND (SELECT ok FROM background_ok)
                  AND NOT EXISTS (SELECT 1 FROM blocks b
                                  WHERE b.blocker_id IN (\(card.author.id), p.author_id) AND b.blocked_id IN (\(card.author.id), p.author_id))
                RETURNING p.id, p.author_id),
            inserted AS (
                INSERT INTO cards (id, author_id, parent_id, content, font, background_kind, background_ref, tags,
                                   latitude, longitude, created_at, expires_at)
                SELECT \(card.id), \(card.author.id), \(card.parentID), \(draft.content.text), \(draft.font.rawValue),
                       \(background.kind), \(background.reference), \(draft.tags.map(\.name)),
                       \(draft.location?.latitude), \(draft.location?.longitude), \(card.createdAt), \(card.expiresAt)
                WHERE (SELECT ok FROM background_ok) AND (\(card.parentID)::uuid IS NULL OR EXISTS (SELECT 1 FROM parent))
                RETURNING parent_id),
            counted AS (
                UPDATE accounts SET card_count = card_count + 1
                WHERE id = \(card.author.id) AND EXISTS (SELECT 1 FROM inserted WHERE parent_id IS NULL)),
            tagged AS (
                INSERT INTO card_tags (tag_key, card_id, created_at)
                SELECT k, \(card.id), \(card.createdAt) FROM unnest(\(tags.map(\.key))::text[]) AS k WHERE EXISTS (SELECT 1 FROM inserted)),
            tag_counts AS (
                INSERT INTO tags AS t (key, name, usage_count)
                SELECT k, n, 1 FROM unnest(\(tags.map(\.key))::text[], \(tags.map(\.name))::text[]) AS u (k, n)
                WHERE EXISTS (SELECT 1 FROM inserted) ORDER BY k COLLATE "C"
                ON CONFLICT (key) DO UPDATE SET usage_count = t.usage_count + 1),
            commented AS (
                INSERT INTO notifications (id, recipient_id, type, actor_id, card_id, created_at)
                SELECT gen_random_uuid(), p.author_id, 'card_commented', \(card.author.id), p.id, \(card.createdAt)
                FROM parent p WHERE p.author_id <> \(card.author.id) AND EXISTS (SELECT 1 FROM inserted)),
            favorite_tag_outbox AS (
                INSERT INTO tag_notification_outbox (card_id, created_at)
                SELECT \(card.id), \(card.createdAt) WHERE EXISTS (SELECT 1 FROM inserted) AND EXISTS (
                    SELECT 1 FROM favorite_tags f WHERE f.tag_key = ANY (\(tags.map(\.key))::text[]) AND f.account_id <> \(card.author.id)))
            SELECT (SELECT count(*) FROM inserted)::int, (SELECT ok FROM background_ok), EXISTS (SELECT 1 FROM author),
                   (SELECT until FROM restriction)
            """)
        let (inserted, backgroundOK, authorExists, restrictedUntil) = try rows[0].decode((Int, Bool, Bool, Date?).self)
        if inserted == 1 { return .created(card.asPosted) }
        if !authorExists { return .authorNotFound }
        if let restrictedUntil { return .authorRestricted(until: restrictedUntil) }
        return backgroundOK ? .parentNotFound : .backgroundNotOwned
    }

    public func card(id: UUID, viewer: UUID) async throws -> Card? {
        try await self.database.first(CardStatements.Detail(viewer: viewer, id: id))?.card
    }

    /// One transaction: the delete with its counters (as one statement), then the release of
    /// its tags. A hidden card can still be deleted by its author; it no longer counted anywhere. The caller's account is locked first, as every card writer does.
    public func delete(cardID: UUID, by accountID: UUID) async throws -> DeleteCardOutcome {
        let logger = self.database.logger
        let (author, deleted) = try await self.database.transaction { connection in
            let rows = try await connection.query(
                """
                WITH caller AS (SELECT id FROM accounts WHERE id = \(accountID) FOR NO KEY UPDATE),
                target AS (
                    SELECT id, author_id FROM cards c WHERE c.id = \(cardID) AND \(unescaped: CardRow.unexpired)
                      AND (c.hidden_at IS NULL OR c.author_id = \(accountID)) AND EXISTS (SELECT 1 FROM caller)),
                deleted AS (
                    DELETE FROM cards WHERE id IN (SELECT id FROM target WHERE author_id = \(accountID))
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
        // Not there, or deleted by a concurrent request of the author: either way it is gone.
        guard let author, author != accountID else { return .notFound }
        return .notOwner
    }

    public func setLike(_ liked: Bool, cardID: UUID, by accountID: UUID) async throws -> LikeState? {
        let rows: [PostgresRow]
        if liked {
            rows = try await self.database.rows(
                """
                WITH target AS (
                    SELECT id, like_count, author_id FROM cards c WHERE c.id = \(cardID) AND \(unescaped: CardRow.live)
                      AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id IN (\(accountID), c.author_id) AND b.blocked_id IN (\(accountID), c.author_id))),
                added AS (
                    INSERT INTO likes (card_id, account_id, created_at) SELECT id, \(accountID), now() FROM target
                    ON CONFLICT DO NOTHING RETURNING card_id),
                counted AS (UPDATE cards SET like_count = like_count + 1 WHERE id IN (SELECT card_id FROM added) RETURNING like_count),
                notified AS (
                    INSERT INTO notifications (id, recipient_id, type, actor_id, card_id, created_at)
                    SELECT gen_random_uuid(), t.author_id, 'card_liked', \(accountID), t.id, now() FROM target t
                    WHERE t.author_id <> \(accountID) AND EXISTS (SELECT 1 FROM added)
                    ON CONFLICT (recipient_id, actor_id, card_id) WHERE type = 'card_liked' AND NOT read DO NOTHING)
                SELECT EXISTS (SELECT 1 FROM target), COALESCE((SELECT like_count FROM counted), (SELECT like_count FROM target))
                """)
        } else {
            rows = try await self.database.rows(
                """
                WITH target AS (
                    SELECT id, like_count FROM cards c WHERE c.id = \(cardID) AND \(unescaped: CardRow.live)
                      AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id IN (\(accountID), c.author_id) AND b.blocked_id IN (\(accountID), c.author_id))),
                removed AS (
                    DELETE FROM likes WHERE card_id IN (SELECT id FROM target) AND account_id = \(accountID) RETURNING card_id),
                counted AS (UPDATE cards SET like_count = like_count - 1 WHERE id IN (SELECT card_id FROM removed) RETURNING like_count)
                SELECT EXISTS (SELECT 1 FROM target), COALESCE((SELECT like_count FROM counted), (SELECT like_count FROM target))
                """)
        }
        let (exists, count) = try rows[0].decode((Bool, Int?).self)
        guard exists, let count else { return nil }
        return LikeState(liked: liked, likeCount: count)
    }
}
