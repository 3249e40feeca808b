import Foundation
import Logging
import PostgresNIO
import SoomDomain

/// Brings `accounts.nickname_key` to the current `Nickname.key(for:)` (version 2: the confusable
/// skeleton) for accounts whose key an earlier rule made (`nickname_key_version` < 2), run by the
/// migrator after the SQL migrations, under its lock. PostgreSQL cannot compute a skeleton, so
/// this step is Swift.
///
/// One transaction that locks `accounts` against other writers (reads go on), so that no sign-up
/// or rename can take a key between the check and the write. Accounts are taken oldest first:
/// when two existing names share one skeleton (they look alike), the older account keeps the key
/// and the newer one keeps its name under a key nobody can type (`<skeleton>#<id>`; `#` is no
/// nickname character), so neither is renamed and no new look-alike can be made.
enum NicknameRekey {
    /// The version of `Nickname.key(for:)` that new keys are written with.
    static let currentVersion: Int16 = 2

    /// Returns how many accounts it re-keyed.
    static func run(on connection: PostgresConnection, logger: Logger) async throws -> Int {
        // Before migration 0018 (a migrator given only the older migrations) there is nothing to do.
        let versioned = try await connection.query(
            """
            SELECT EXISTS (SELECT 1 FROM pg_attribute
                           WHERE attrelid = to_regclass('accounts') AND attname = 'nickname_key_version' AND NOT attisdropped)
            """, logger: logger)
        var columnExists = false
        for try await row in versioned { columnExists = try RowCells.decode(row, Bool.self) }
        guard columnExists else { return 0 }
        let pending = try await connection.query(
            "SELECT EXISTS (SELECT 1 FROM accounts WHERE nickname_key_version < \(currentVersion))", logger: logger)
        var due = false
        for try await row in pending { due = try RowCells.decode(row, Bool.self) }
        guard due else { return 0 }

        try await connection.query("BEGIN", logger: logger)
        do {
            try await connection.query("LOCK TABLE accounts IN SHARE ROW EXCLUSIVE MODE", logger: logger)
            var taken = Set<String>()
            for try await row in try await connection.query(
                "SELECT nickname_key FROM accounts WHERE nickname_key_version >= \(currentVersion)", logger: logger)
            {
                taken.insert(try RowCells.decode(row, String.self))
            }
            var ids: [UUID] = []
            var keys: [String] = []
            for try await row in try await connection.query(
                "SELECT id, nickname FROM accounts WHERE nickname_key_version < \(currentVersion) ORDER BY created_at, id", logger: logger)
            {
                let (id, nickname) = try RowCells.decode(row, UUID.self, String.self)
                let key = Nickname.key(for: nickname)
                ids.append(id)
                keys.append(taken.insert(key).inserted ? key : "\(key)#\(id.uuidString.lowercased())")
            }
            // Out of the way first (a key moving to another account must not collide on the way).
            try await connection.query(
                "UPDATE accounts SET nickname_key = '#' || id::text WHERE id = ANY(\(ids))", logger: logger)
            try await connection.query(
                """
                UPDATE accounts a SET nickname_key = d.key, nickname_key_version = \(currentVersion)
                FROM unnest(\(ids)::uuid[], \(keys)::text[]) AS d (id, key) WHERE a.id = d.id
                """, logger: logger)
            try await connection.query("COMMIT", logger: logger)
            logger.notice("nickname keys brought to the confusable skeleton", metadata: ["accounts": "\(ids.count)"])
            return ids.count
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }
}
