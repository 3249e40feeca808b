import Foundation
import PostgresNIO
import SoomDomain

extension CardStatements {
    /// Posting a card or comment card, as one prepared statement: parsed and planned once per
    /// connection instead of on every post (planning this statement took as long as running it,
    /// ~1.7 ms of PostgreSQL's CPU per post).
    ///
    /// It checks that the author may post (exists, not restricted), the background's owner and
    /// the parent's liveness (and that neither the author nor the parent's author blocked the
    /// other), counts the comment card on its parent or the card on its author, inserts, records
    /// its tags (`card_tags` rows, `tags.usage_count` + 1 each; the rows' trigger counts the tags'
    /// authors, migration 0018), notifies the parent's author (one unread notification per
    /// commenter and card), and
    /// queues the card's notifications (`favorite_tag_used` when another account favours one of its
    /// tags; `following_posted` for a top-level card whose author has followers, one row per author
    /// however many posts are waiting: each one row, however many are to hear of it), and
    /// fans a top-level card out to the following inboxes of its author's wide followers
    /// (`fan_out_card`, migration 0013) — all or nothing.
    ///
    /// Lock order (see `TagUsageSQL`): the author's account first (`author`, which every other
    /// part waits for through `background_ok`), then the uploaded background's image row (KEY
    /// SHARE, so the retention job cannot delete it under the post), then the parent card, then
    /// tag rows in key order.
    ///
    /// Parameters, in `makeBindings`' order: the author, the background's kind, the uploaded
    /// background's ID, the parent, the card's ID, content, font, the background's reference, the
    /// tag names in the card's order, the latitude and longitude of the location's cell centre, the
    /// creation time, the expiry, the tag keys and names in key order, the cell's key, the poll's
    /// options, whether it takes several, and when it closes. Every one is
    /// cast, so the types never depend on a first execution's values (a `NULL` parent, say).
    struct Insert: NamedStatement {
        static let sql: String = {
            var parameters = Parameters()
            let author = parameters.next() + "::uuid"
            let backgroundKind = parameters.next() + "::text"
            let upload = parameters.next() + "::uuid"
            let parent = parameters.next() + "::uuid"
            let card = parameters.next() + "::uuid"
            let content = parameters.next() + "::text"
            let font = parameters.next() + "::text"
            let backgroundRef = parameters.next() + "::text"
            let tags = parameters.next() + "::text[]"
            let latitude = parameters.next() + "::float8"
            let longitude = parameters.next() + "::float8"
            let createdAt = parameters.next() + "::timestamptz"
            let expiresAt = parameters.next() + "::timestamptz"
            let keys = parameters.next() + "::text[]"
            let keyNames = parameters.next() + "::text[]"
            let cell = parameters.next() + "::text"
            let pollOptions = parameters.next() + "::text[]"
            let pollMultiple = parameters.next() + "::boolean"
            let pollClosesAt = parameters.next() + "::timestamptz"
            return """
                WITH author AS (SELECT id, restricted_until, follower_count FROM accounts WHERE id = \(author) FOR NO KEY UPDATE),
                restriction AS (SELECT restricted_until AS until FROM author WHERE restricted_until > now()),
                background_ok AS (
                    SELECT EXISTS (SELECT 1 FROM author) AND NOT EXISTS (SELECT 1 FROM restriction) AND (\(backgroundKind) = 'default'
                        OR EXISTS (SELECT 1 FROM images WHERE id = \(upload) AND owner_id = \(author) FOR KEY SHARE)) AS ok),
                parent AS (
                    UPDATE cards p SET comment_count = p.comment_count + 1
                    WHERE p.id = \(parent) AND \(CardRow.live(as: "p"))
                      AND (SELECT ok FROM background_ok)
                      AND \(CardRow.notBlocked(author, "p.author_id"))
                    RETURNING p.id, p.author_id),
                inserted AS (
                    INSERT INTO cards (id, author_id, parent_id, content, font, background_kind, background_ref, tags,
                                       geo_cell, geo_latitude, geo_longitude, created_at, expires_at,
                                       poll_options, poll_multiple, poll_closes_at, poll_votes, poll_voters)
                    SELECT \(card), \(author), \(parent), \(content), \(font), \(backgroundKind), \(backgroundRef), \(tags),
                           \(cell), \(latitude), \(longitude), \(createdAt), \(expiresAt),
                           \(pollOptions), \(pollMultiple), \(pollClosesAt),
                           CASE WHEN \(pollOptions) IS NOT NULL THEN array_fill(0, ARRAY[cardinality(\(pollOptions))]) END,
                           CASE WHEN \(pollOptions) IS NOT NULL THEN 0 END
                    WHERE (SELECT ok FROM background_ok) AND (\(parent) IS NULL OR EXISTS (SELECT 1 FROM parent))
                    RETURNING parent_id),
                counted AS (
                    UPDATE accounts SET card_count = card_count + 1
                    WHERE id = \(author) AND EXISTS (SELECT 1 FROM inserted WHERE parent_id IS NULL)),
                tagged AS (
                    INSERT INTO card_tags (tag_key, card_id, author_id, created_at)
                    SELECT k, \(card), \(author), \(createdAt) FROM unnest(\(keys)) AS k WHERE EXISTS (SELECT 1 FROM inserted)),
                tag_counts AS (
                    INSERT INTO tags AS t (key, name, usage_count)
                    SELECT k, n, 1 FROM unnest(\(keys), \(keyNames)) AS u (k, n)
                    WHERE EXISTS (SELECT 1 FROM inserted) ORDER BY k COLLATE "C"
                    ON CONFLICT (key) DO UPDATE SET usage_count = t.usage_count + 1),
                commented AS (
                    INSERT INTO notifications (id, recipient_id, type, actor_id, card_id, created_at)
                    SELECT gen_random_uuid(), p.author_id, 'card_commented', \(author), p.id, \(createdAt)
                    FROM parent p WHERE p.author_id <> \(author) AND EXISTS (SELECT 1 FROM inserted)
                    ON CONFLICT (recipient_id, actor_id, card_id) WHERE type = 'card_commented' AND NOT read DO NOTHING),
                fanned AS (
                    SELECT fan_out_card(\(card), \(author), \(createdAt)) AS n FROM inserted WHERE parent_id IS NULL),
                favorite_tag_outbox AS (
                    INSERT INTO tag_notification_outbox (card_id, created_at)
                    SELECT \(card), \(createdAt) WHERE EXISTS (SELECT 1 FROM inserted) AND EXISTS (
                        SELECT 1 FROM favorite_tags f WHERE f.tag_key = ANY (\(keys)) AND f.account_id <> \(author))),
                follower_outbox AS (
                    INSERT INTO follower_notification_outbox (author_id, card_id, created_at)
                    SELECT \(author), \(card), \(createdAt) FROM inserted
                    WHERE parent_id IS NULL AND (SELECT follower_count FROM author) > 0
                    ON CONFLICT (author_id) DO NOTHING)
                SELECT (SELECT count(*) FROM inserted)::int, (SELECT ok FROM background_ok), EXISTS (SELECT 1 FROM author),
                       (SELECT until FROM restriction), (SELECT coalesce(sum(n), 0) FROM fanned)::int
                """
        }()
        /// Inserted rows (0 or 1), whether the author and background passed, whether the author
        /// exists, the end of a running restriction, and the following-inbox rows written (the
        /// column also makes `fanned` run: a CTE nothing reads is not evaluated).
        typealias Row = (inserted: Int, backgroundOK: Bool, authorExists: Bool, restrictedUntil: Date?, inboxRows: Int)

        let card: NewCard

        func makeBindings() throws -> PostgresBindings {
            let draft = self.card.draft
            let background = AccountRow.columns(of: draft.background.reference)
            let uploadID: UUID? = if case .upload(let id) = draft.background { UUID(uuidString: id) } else { nil }
            let tags = draft.tags.sorted { $0.key < $1.key }
            var bindings = PostgresBindings(capacity: 19)
            bindings.append(self.card.author.id)
            bindings.append(background.kind)
            bindings.append(uploadID)
            bindings.append(self.card.parentID)
            bindings.append(self.card.id)
            bindings.append(draft.content.text)
            bindings.append(draft.font.rawValue)
            bindings.append(background.reference)
            bindings.append(draft.tags.map(\.name))
            bindings.append(draft.location?.latitude)
            bindings.append(draft.location?.longitude)
            bindings.append(self.card.createdAt)
            bindings.append(self.card.expiresAt)
            bindings.append(tags.map(\.key))
            bindings.append(tags.map(\.name))
            bindings.append(draft.location?.key)
            bindings.append(draft.poll?.options)
            bindings.append(draft.poll?.multiple)
            bindings.append(self.card.pollClosesAt)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            try RowCells.decode(row, Int.self, Bool.self, Bool.self, Date?.self, Int.self)
        }
    }
}
