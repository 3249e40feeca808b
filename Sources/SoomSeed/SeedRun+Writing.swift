import PostgresNIO
import SoomData
import SoomDomain

// Phases 3 and 4: copy the staged rows into the real tables, counters included, then recount.
// `SeedRun.execute` calls all of these inside its one transaction.
extension SeedRun {
    /// Foreign-key checks are per-row triggers: most of the cost of writing likes. When the role
    /// may set `session_replication_role` (a superuser, like the embedded cluster's) and the tables
    /// have no triggers of their own (but 0009's session-cache notifications, which fire on deletes
    /// and identity changes, never on the inserts and counter updates of a seed, and the marks
    /// notifications of 0014 and 0015, which the seed sends itself: `*`, every instance's marks and
    /// readers' positions dropped at the commit, and 0016's record of risen cards for the popular
    /// ranking, whose candidates the seed drops instead), the writes skip them — as `pg_restore --disable-triggers`
    /// does — and `verifyReferences` checks every reference set-based before the commit. That is
    /// safe: every row referenced is created by this very transaction, invisible to others, so
    /// nobody can delete it meanwhile (what the triggers' row locks are for).
    /// - Returns: whether triggers are off for the rest of the transaction.
    func disableTriggersIfSafe() async throws -> Bool {
        let userTriggers = try await self.count(
            """
            SELECT count(*) FROM pg_trigger
            WHERE NOT tgisinternal AND tgrelid IN ('accounts'::regclass, 'images'::regclass, 'cards'::regclass, 'likes'::regclass,
                                                  'follows'::regclass, 'favorite_tags'::regclass)
              AND tgfoid NOT IN (SELECT oid FROM pg_proc WHERE proname IN ('notify_account_changed', 'notify_all_accounts_changed',
                                                                          'likes_marks_changed', 'follows_marks_changed',
                                                                          'notify_all_marks_changed', 'popular_touch'))
            """)
        guard userTriggers == 0 else {
            self.progress(.note("the tables have triggers of their own: writing with per-row foreign-key checks"))
            return false
        }
        try await self.execute("SAVEPOINT seed_replication_role")
        do {
            try await self.execute("SET LOCAL session_replication_role = replica")
            try await self.execute("RELEASE SAVEPOINT seed_replication_role")
            // The likes' and follows' marks triggers will not fire: tell every instance, at the commit, what they would have.
            try await self.execute("SELECT pg_notify(\(ViewerMarkCache.channel), '*')")
            self.progress(.note("writing without per-row foreign-key triggers; references are verified set-based before commit"))
            return true
        } catch let error as PSQLError where error.code == .server {
            try await self.execute("ROLLBACK TO SAVEPOINT seed_replication_role")
            self.progress(.note("not allowed to set session_replication_role: writing with per-row foreign-key checks"))
            return false
        }
    }

    /// What the foreign keys would have checked, for all the written rows at once.
    func verifyReferences() async throws {
        let missing = try await self.count(
            """
            SELECT (SELECT count(*) FROM seed_cards AS c WHERE NOT EXISTS (SELECT 1 FROM accounts AS a WHERE a.id = c.author_id))
                 + (SELECT count(*) FROM images AS i JOIN seed_cards AS c ON c.background_kind = 'upload' AND c.background_ref = i.id::text
                    WHERE NOT EXISTS (SELECT 1 FROM accounts AS a WHERE a.id = i.owner_id))
                 + (SELECT count(*) FROM seed_likes AS l WHERE NOT EXISTS (SELECT 1 FROM cards AS c WHERE c.id = l.card_id))
                 + (SELECT count(*) FROM seed_likes AS l WHERE NOT EXISTS (SELECT 1 FROM accounts AS a WHERE a.id = l.account_id))
                 + (SELECT count(*) FROM seed_follows AS f WHERE NOT EXISTS (SELECT 1 FROM accounts AS a WHERE a.id = f.follower_id))
                 + (SELECT count(*) FROM seed_follows AS f WHERE NOT EXISTS (SELECT 1 FROM accounts AS a WHERE a.id = f.followee_id))
                 + (SELECT count(*) FROM favorite_tags AS t JOIN seed_accounts AS s ON s.id = t.account_id
                    WHERE NOT EXISTS (SELECT 1 FROM accounts AS a WHERE a.id = t.account_id))
            """)
        if missing > 0 { throw SeedError.brokenReferences(missing) }
    }

    /// Rows staged per table, the totals the write phases report progress against.
    func stagedCounts() async throws -> (accounts: Int, cards: Int, likes: Int, follows: Int) {
        let row = try await self.connection.query(
            """
            SELECT (SELECT count(*) FROM seed_accounts), (SELECT count(*) FROM seed_cards), (SELECT count(*) FROM seed_likes),
                   (SELECT count(*) FROM seed_follows)
            """,
            logger: self.logger
        ).collect()[0]
        let (accounts, cards, likes, follows) = try RowCells.decode(row, Int.self, Int.self, Int.self, Int.self)
        return (accounts, cards, likes, follows)
    }

    /// Inserts the staged accounts with their card, follower and following counts, oldest first;
    /// returns how many.
    mutating func writeAccounts() async throws -> Int {
        var written = 0
        let total = try await self.count("SELECT count(*) FROM seed_accounts")
        for (low, high) in self.chunks(1...self.plan.accounts) {
            written += try await self.count(
                """
                WITH inserted AS (
                    INSERT INTO accounts (id, key_fingerprint, public_key, nickname, nickname_key, profile_image_kind, profile_image_ref,
                                          bio, card_count, follower_count, following_count, created_at)
                    SELECT s.id, s.key_fingerprint, s.public_key, s.nickname, s.nickname_key, s.profile_image_kind, s.profile_image_ref,
                           s.bio, coalesce(k.cards, 0), coalesce(f.followers, 0), coalesce(f.following, 0), s.created_at
                    FROM seed_accounts AS s LEFT JOIN seed_author_counts AS k ON k.id = s.id LEFT JOIN seed_follow_counts AS f ON f.id = s.id
                    WHERE s.n BETWEEN \(low) AND \(high)
                    ORDER BY s.n
                    RETURNING 1
                )
                SELECT count(*) FROM inserted
                """)
            self.progress(.progress(.writeAccounts, done: written, total: total))
        }
        self.summary.accounts = written
        return written
    }

    /// Inserts the uploaded backgrounds' images, then all staged cards with their counters, in
    /// `n` order; returns the cards and images written.
    mutating func writeCards() async throws -> Int {
        self.summary.images = try await self.count(
            """
            WITH png AS (SELECT \(SeedVocabulary.uploadPNG)::bytea AS bytes), inserted AS (
                INSERT INTO images (id, owner_id, content_type, byte_count, sha256, bytes, created_at)
                SELECT background_ref::uuid, author_id, 'image/png', octet_length(png.bytes), sha256(png.bytes), png.bytes, created_at
                FROM seed_cards, png WHERE background_kind = 'upload'
                ORDER BY n
                RETURNING 1
            )
            SELECT count(*) FROM inserted
            """)
        let total = self.plan.cards + self.plan.comments
        var written = 0
        for (low, high) in self.chunks(1...max(total, 1)) {
            written += try await self.count(
                """
                WITH inserted AS (
                    -- Only the location's cell is stored, as for a posted card (`soom_geo_cell` is `GeoCell` in SQL).
                    INSERT INTO cards (id, author_id, parent_id, content, font, background_kind, background_ref, tags,
                                       geo_cell, geo_latitude, geo_longitude, created_at, expires_at, like_count, comment_count)
                    SELECT c.id, c.author_id, c.parent_id, c.content, c.font, c.background_kind, c.background_ref, c.tags,
                           g.key, g.cell_latitude, g.cell_longitude, c.created_at, c.expires_at, coalesce(k.like_count, 0), coalesce(k.comment_count, 0)
                    FROM seed_cards AS c LEFT JOIN seed_counts AS k ON k.id = c.id
                         LEFT JOIN LATERAL soom_geo_cell(c.latitude, c.longitude) AS g ON c.latitude IS NOT NULL
                    WHERE c.n BETWEEN \(low) AND \(high)
                    ORDER BY c.n
                    RETURNING 1
                )
                SELECT count(*) FROM inserted
                """)
            self.progress(.progress(.writeCards, done: written, total: total))
        }
        try await self.writeTags()
        self.summary.cards = try await self.count("SELECT count(*) FROM seed_cards WHERE parent_id IS NULL")
        self.summary.comments = written - self.summary.cards
        return written + self.summary.images
    }

    /// The staged cards' tags: their `card_tags` rows (one per card and case-folded key) and
    /// the counts they add to `tags` (the first spelling by time is the name of a new tag).
    /// Seed tags are ASCII or Hangul, so PostgreSQL's `lower` folds them as the server does.
    func writeTags() async throws {
        try await self.execute(
            """
            CREATE TEMPORARY TABLE seed_card_tags ON COMMIT DROP AS
            SELECT DISTINCT ON (c.id, lower(t.name)) lower(t.name) COLLATE "C" AS tag_key, t.name, c.id AS card_id, c.author_id, c.created_at
            FROM seed_cards AS c, unnest(c.tags) AS t (name)
            ORDER BY c.id, lower(t.name)
            """)
        // The tags first: the tag rows' trigger counts each tag's authors on its `tags` row.
        try await self.execute(
            """
            INSERT INTO tags AS t (key, name, usage_count)
            SELECT tag_key, (array_agg(name ORDER BY created_at))[1], count(*) FROM seed_card_tags GROUP BY tag_key ORDER BY tag_key
            ON CONFLICT (key) DO UPDATE SET usage_count = t.usage_count + EXCLUDED.usage_count
            """)
        try await self.execute(
            """
            INSERT INTO card_tags (tag_key, card_id, author_id, created_at)
            SELECT tag_key, card_id, author_id, created_at FROM seed_card_tags ORDER BY tag_key, created_at DESC, card_id DESC
            """)
    }

    /// Inserts the staged likes in primary-key order; returns how many.
    mutating func writeLikes() async throws -> Int {
        let total = try await self.count("SELECT count(*) FROM seed_likes")
        let pieces = max(1, (total + self.plan.chunkSize - 1) / self.plan.chunkSize)
        var written = 0
        // Ranges of card ids (random v4 uuids spread evenly), each read in primary-key order.
        for index in 0..<pieces {
            let (low, high) = Self.uuidRange(index, of: pieces)
            written += try await self.count(
                """
                WITH inserted AS (
                    INSERT INTO likes (card_id, account_id, created_at)
                    SELECT card_id, account_id, created_at FROM seed_likes
                    WHERE card_id >= \(low) AND (\(high)::uuid IS NULL OR card_id < \(high))
                    ORDER BY card_id, account_id
                    RETURNING 1
                )
                SELECT count(*) FROM inserted
                """)
            self.progress(.progress(.writeLikes, done: written, total: total))
        }
        self.summary.likes = written
        return written
    }

    /// Exact counters over the whole tables, set-based; touches only rows that disagree.
    mutating func recountCounters() async throws -> Int {
        let cards = try await self.count(
            """
            WITH truth AS (
                SELECT c.id, coalesce(l.likes, 0) AS likes, coalesce(m.comments, 0) AS comments
                FROM cards AS c
                LEFT JOIN (SELECT card_id, count(*)::int AS likes FROM likes GROUP BY card_id) AS l ON l.card_id = c.id
                LEFT JOIN (
                    SELECT parent_id, count(*)::int AS comments FROM cards
                    WHERE parent_id IS NOT NULL AND (expires_at IS NULL OR expires_at > now())
                    GROUP BY parent_id
                ) AS m ON m.parent_id = c.id
            ), updated AS (
                UPDATE cards AS c SET like_count = truth.likes, comment_count = truth.comments
                FROM truth
                WHERE c.id = truth.id AND (c.like_count <> truth.likes OR c.comment_count <> truth.comments)
                RETURNING 1
            )
            SELECT count(*) FROM updated
            """)
        let accounts = try await self.count(
            """
            WITH truth AS (
                SELECT a.id, coalesce(c.cards, 0) AS cards, coalesce(i.n, 0) AS followers, coalesce(o.n, 0) AS following
                FROM accounts AS a
                LEFT JOIN (SELECT author_id, count(*)::int AS cards FROM cards WHERE parent_id IS NULL GROUP BY author_id) AS c
                    ON c.author_id = a.id
                LEFT JOIN (SELECT followee_id, count(*)::int AS n FROM follows GROUP BY followee_id) AS i ON i.followee_id = a.id
                LEFT JOIN (SELECT follower_id, count(*)::int AS n FROM follows GROUP BY follower_id) AS o ON o.follower_id = a.id
            ), updated AS (
                UPDATE accounts AS a SET card_count = truth.cards, follower_count = truth.followers, following_count = truth.following
                FROM truth
                WHERE a.id = truth.id
                  AND (a.card_count <> truth.cards OR a.follower_count <> truth.followers OR a.following_count <> truth.following)
                RETURNING 1
            )
            SELECT count(*) FROM updated
            """)
        let tags = try await self.count(
            """
            WITH truth AS (
                SELECT t.key, coalesce(u.n, 0) AS n
                FROM tags AS t LEFT JOIN (SELECT tag_key, count(*)::int AS n FROM card_tags GROUP BY tag_key) AS u ON u.tag_key = t.key
            ), updated AS (
                UPDATE tags AS t SET usage_count = truth.n FROM truth WHERE t.key = truth.key AND t.usage_count <> truth.n
                RETURNING 1
            )
            SELECT count(*) FROM updated
            """)
        self.summary.correctedCounters = cards + accounts + tags
        if cards + accounts + tags > 0 {
            self.progress(.note("recount corrected \(cards) card, \(accounts) account and \(tags) tag counters"))
        }
        return cards + accounts + tags
    }
}
