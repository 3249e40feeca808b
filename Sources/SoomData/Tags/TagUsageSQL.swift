import Foundation
import Logging
import PostgresNIO

/// How card writers keep `tags.usage_count` exact (see `sql/0003_tags.sql`).
///
/// The invariant: a tag's `usage_count` equals its number of `card_tags` rows, and a card has
/// those rows exactly while it is live. Creating a card inserts them and adds to the counts in
/// the same statement (`PostgresCardRepository.insert`); everything that removes a card —
/// deleting it, the story-expiry sweep, withdrawal of its author, and hiding it after reports
/// (`report_card` in `sql/0006_safety.sql`) — calls `release` in the same transaction. `release` subtracts exactly the
/// rows it deleted, so a card removed by two paths at once is counted down once.
///
/// Lock order, the same on every path so writers never deadlock: the account, then cards, then
/// `card_tags` rows, then `tags` rows in ascending key order (`COLLATE "C"`).
enum TagUsageSQL {
    /// Removes the tag rows of `cardIDs` and subtracts them from their tags' counts.
    /// Call it inside the transaction that deletes (or hides) the cards, before or after the
    /// cards go: the foreign key from `card_tags` is checked at commit.
    static func release(cardIDs: [UUID], on connection: PostgresConnection, logger: Logger) async throws {
        guard !cardIDs.isEmpty else { return }
        try await connection.query("SELECT release_card_tags(\(cardIDs))", logger: logger)
    }

    /// The first step of a withdrawal: locks the account (no card of it can be created or
    /// deleted concurrently from here on) and returns its cards that carry tags, for
    /// `release` once the cards are deleted.
    static func beginWithdrawal(of accountID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> [UUID] {
        try await connection.query("SELECT 1 FROM accounts WHERE id = \(accountID) FOR UPDATE", logger: logger)
        var tagged: [UUID] = []
        let rows = try await connection.query(
            "SELECT id FROM cards WHERE author_id = \(accountID) AND cardinality(tags) > 0", logger: logger)
        for try await row in rows { tagged.append(try RowCells.decode(row, UUID.self)) }
        return tagged
    }
}
