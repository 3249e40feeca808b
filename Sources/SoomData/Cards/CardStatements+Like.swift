import Foundation
import PostgresNIO
import SoomDomain

extension CardStatements {
    /// A like given (`Like`) or taken back (`Unlike`), its count and the author's notification
    /// changed in the same statement. The target is a live card whose author and the account did
    /// not block one another: `CardRow`'s predicates, the ones every read uses. One row: whether
    /// the card is there, and its like count after the change.
    ///
    /// Likes are private: the author's `card_liked` notification keeps who liked only to keep one
    /// unread per liker and to take it back when the like is withdrawn; it is never shown
    /// (`PostgresNotificationRepository.page`).
    struct Like: NamedStatement {
        static let sql = CardStatements.likeSQL { account in
            """
            added AS (
                INSERT INTO likes (card_id, account_id, created_at) SELECT id, \(account), now() FROM target
                ON CONFLICT DO NOTHING RETURNING card_id),
            counted AS (UPDATE cards SET like_count = like_count + 1 WHERE id IN (SELECT card_id FROM added) RETURNING like_count),
            notified AS (
                INSERT INTO notifications (id, recipient_id, type, actor_id, card_id, created_at)
                SELECT gen_random_uuid(), t.author_id, 'card_liked', \(account), t.id, now() FROM target t
                WHERE t.author_id <> \(account) AND EXISTS (SELECT 1 FROM added)
                ON CONFLICT (recipient_id, actor_id, card_id) WHERE type = 'card_liked' AND NOT read DO NOTHING)
            """
        }
        typealias Row = (exists: Bool, likeCount: Int?)

        let account: UUID
        let card: UUID

        func makeBindings() throws -> PostgresBindings { CardStatements.likeBindings(account: self.account, card: self.card) }
        func decodeRow(_ row: PostgresRow) throws -> Row { try RowCells.decode(row, Bool.self, Int?.self) }
    }

    /// See `Like`.
    struct Unlike: NamedStatement {
        static let sql = CardStatements.likeSQL { account in
            """
            removed AS (
                DELETE FROM likes WHERE card_id IN (SELECT id FROM target) AND account_id = \(account) RETURNING card_id),
            counted AS (UPDATE cards SET like_count = like_count - 1 WHERE id IN (SELECT card_id FROM removed) RETURNING like_count),
            unnotified AS (
                DELETE FROM notifications n USING target t
                WHERE n.recipient_id = t.author_id AND n.actor_id = \(account) AND n.card_id = t.id
                  AND n.type = 'card_liked' AND NOT n.read AND EXISTS (SELECT 1 FROM removed))
            """
        }
        typealias Row = (exists: Bool, likeCount: Int?)

        let account: UUID
        let card: UUID

        func makeBindings() throws -> PostgresBindings { CardStatements.likeBindings(account: self.account, card: self.card) }
        func decodeRow(_ row: PostgresRow) throws -> Row { try RowCells.decode(row, Bool.self, Int?.self) }
    }

    /// `Like`'s or `Unlike`'s text: the target card, then `change` (its CTEs, given the account's
    /// placeholder), then the answer.
    private static func likeSQL(_ change: (String) -> String) -> String {
        var parameters = Parameters()
        let (account, card) = ("\(parameters.next())::uuid", "\(parameters.next())::uuid")
        return """
            WITH target AS (
                SELECT id, like_count, author_id FROM cards c
                WHERE c.id = \(card) AND \(CardRow.live) AND \(CardRow.notBlocked(account, "c.author_id"))),
            \(change(account))
            SELECT EXISTS (SELECT 1 FROM target), COALESCE((SELECT like_count FROM counted), (SELECT like_count FROM target))
            """
    }

    /// The account, then the card: `likeSQL`'s order.
    private static func likeBindings(account: UUID, card: UUID) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(account)
        bindings.append(card)
        return bindings
    }
}
