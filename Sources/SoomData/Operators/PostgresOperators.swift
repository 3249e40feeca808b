import Foundation
import PostgresNIO
import SoomDomain

/// What operators write with `soom admin` (notices, client versions, maintenance, refused words)
/// and what the server reads of it (`OperatorRepository`). Tables of migration 0021.
public struct PostgresOperators: OperatorRepository {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Every switch in one statement (each instance reads it every two seconds): the pinned
    /// operator cards through `cards_pinned_idx`.
    public func switches() async throws -> OperatorSwitches.Settings {
        let rows = try await self.database.rows(
            """
            WITH pinned AS (
                SELECT c.id, c.created_at, c.pinned_until FROM cards c
                WHERE \(unescaped: Self.pinnedNow) ORDER BY c.created_at DESC, c.id DESC LIMIT \(OperatorSwitches.Pinned.shown))
            SELECT (SELECT until FROM maintenance),
                   coalesce((SELECT array_agg(platform || ' ' || latest || ' ' || minimum) FROM client_versions), '{}'),
                   coalesce((SELECT array_agg(word ORDER BY added_at, word) FROM refused_words), '{}'),
                   ARRAY(SELECT id FROM pinned ORDER BY created_at DESC, id DESC),
                   ARRAY(SELECT pinned_until FROM pinned ORDER BY created_at DESC, id DESC)
            """)
        var cells = RowCells(rows[0])
        let until = try cells.next(Date?.self)
        let versions = try cells.next([String].self)
        let words = try cells.next([String].self)
        let pinnedCards = try cells.next([UUID].self)
        let pinnedUntil = try cells.next([Date].self)
        var policies: [ClientPlatform: ClientVersionPolicy] = [:]
        for line in versions {
            let parts = line.split(separator: " ").map(String.init)
            // The table's checks admit only these shapes.
            guard parts.count == 3, let platform = ClientPlatform(rawValue: parts[0]), let latest = SemanticVersion(parts[1]),
                let minimum = SemanticVersion(parts[2])
            else { continue }
            policies[platform] = ClientVersionPolicy(latest: latest, minimum: minimum)
        }
        return OperatorSwitches.Settings(
            maintenanceUntil: until, clientVersions: policies, refusedWords: RefusedWords(words),
            pinned: zip(pinnedCards, pinnedUntil).map { OperatorSwitches.Pinned(card: $0, until: $1) })
    }

    public func notices(after position: FeedPosition?, limit: Int) async throws -> ListPage<Notice> {
        let rows = try await self.database.rows(
            """
            SELECT id, kind, title, body, url, created_at, \(unescaped: ProfileRow.micros("created_at")) FROM notices
            WHERE (created_at, id) < \(position: position ?? .top)
            ORDER BY created_at DESC, id DESC LIMIT \(limit + 1)
            """
        ).map { row in
            var cells = RowCells(row)
            let notice = try Self.notice(&cells)
            return (item: notice, position: FeedPosition(createdAtMicros: try cells.next(Int64.self), id: notice.id))
        }
        return ListPage(rows: rows, limit: limit)
    }

    /// A notice from its columns `id, kind, title, body, url, created_at`.
    private static func notice(_ cells: inout RowCells) throws -> Notice {
        let (id, kind, title) = (try cells.next(UUID.self), try cells.next(String.self), try cells.next(String.self))
        let (body, url, createdAt) = (try cells.next(String.self), try cells.next(String?.self), try cells.next(Date.self))
        return Notice(id: id, kind: Notice.Kind(rawValue: kind) ?? .notice, title: title, body: body, url: url, createdAt: createdAt)
    }

    // MARK: Operators' changes (`soom admin`)

    /// Posts a notice now; returns it.
    public func addNotice(kind: Notice.Kind, title: String, body: String, url: String?) async throws -> Notice {
        let rows = try await self.database.rows(
            """
            INSERT INTO notices (id, kind, title, body, url, created_at)
            VALUES (gen_random_uuid(), \(kind.rawValue), \(title), \(body), \(url), date_trunc('milliseconds', now()))
            RETURNING id, kind, title, body, url, created_at
            """)
        var cells = RowCells(rows[0])
        return try Self.notice(&cells)
    }

    /// Deletes a notice; false when there is none with that id.
    public func removeNotice(id: UUID) async throws -> Bool {
        try await !self.database.rows("DELETE FROM notices WHERE id = \(id) RETURNING 1").isEmpty
    }

    /// Every notice, newest first.
    public func allNotices() async throws -> [Notice] {
        try await self.database.rows("SELECT id, kind, title, body, url, created_at FROM notices ORDER BY created_at DESC, id DESC")
            .map { row in
                var cells = RowCells(row)
                return try Self.notice(&cells)
            }
    }

    public func setClientVersions(_ policy: ClientVersionPolicy, for platform: ClientPlatform) async throws {
        try await self.database.execute(
            """
            INSERT INTO client_versions (platform, latest, minimum) VALUES (\(platform.rawValue), \(policy.latest.description), \(policy.minimum.description))
            ON CONFLICT (platform) DO UPDATE SET latest = excluded.latest, minimum = excluded.minimum
            """)
    }

    /// Switches maintenance on until `until` (replacing a running one's end), or off with nil.
    public func setMaintenance(until: Date?) async throws {
        if let until {
            try await self.database.execute(
                "INSERT INTO maintenance (until) VALUES (\(until)) ON CONFLICT (singleton) DO UPDATE SET until = excluded.until")
        } else {
            try await self.database.execute("DELETE FROM maintenance")
        }
    }

    /// Adds a refused word; false when a word that folds the same way is listed already.
    public func addRefusedWord(_ word: String) async throws -> Bool {
        let key = RefusedWords.key(for: word)
        return try await self.database.transaction { connection in
            // One writer at a time, so two operators adding look-alikes cannot both succeed.
            try await connection.query("LOCK TABLE refused_words IN SHARE ROW EXCLUSIVE MODE", logger: self.database.logger)
            let words = try await connection.query("SELECT word FROM refused_words", logger: self.database.logger).collect()
            if try words.contains(where: { try RefusedWords.key(for: RowCells.decode($0, String.self)) == key }) { return false }
            try await connection.query("INSERT INTO refused_words (word) VALUES (\(word))", logger: self.database.logger)
            return true
        }
    }

    /// Removes every listed word that folds as `word` does; the words removed.
    public func removeRefusedWord(_ word: String) async throws -> [String] {
        let key = RefusedWords.key(for: word)
        let listed = try await self.refusedWords()
        let matching = listed.filter { RefusedWords.key(for: $0) == key }
        guard !matching.isEmpty else { return [] }
        try await self.database.execute("DELETE FROM refused_words WHERE word = ANY(\(matching))")
        return matching
    }

    /// The refused words, in the order they were added.
    public func refusedWords() async throws -> [String] {
        try await self.database.rows("SELECT word FROM refused_words ORDER BY added_at, word").map { try RowCells.decode($0, String.self) }
    }
}
