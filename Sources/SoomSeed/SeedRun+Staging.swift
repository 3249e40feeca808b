import PostgresNIO
import SoomData

// Phases 1 and 2: generate every row into session-private temporary tables, then tally the
// counters they imply. Nothing here touches the real tables, so it needs no transaction.
extension SeedRun {
    /// `seed_accounts`, `seed_cards` and `seed_likes_raw`, empty; `seed_likes` comes later.
    func createStagingTables() async throws {
        try await self.execute(
            """
            CREATE TEMP TABLE seed_accounts (
                n integer PRIMARY KEY, id uuid NOT NULL, key_fingerprint bytea NOT NULL, public_key bytea NOT NULL,
                nickname text NOT NULL, nickname_key text NOT NULL, profile_image_kind text, profile_image_ref text,
                bio text NOT NULL, created_at timestamptz NOT NULL, poster boolean NOT NULL)
            """)
        // n: top-level cards 1…cards in created_at order, then comment cards.
        try await self.execute(
            """
            CREATE TEMP TABLE seed_cards (
                n bigint NOT NULL, id uuid NOT NULL, author_id uuid NOT NULL, parent_id uuid, content text NOT NULL,
                font text NOT NULL, background_kind text NOT NULL, background_ref text NOT NULL, tags text[] NOT NULL,
                latitude double precision, longitude double precision, created_at timestamptz NOT NULL, expires_at timestamptz)
            """)
        // Likes are appended here unindexed, then de-duplicated into seed_likes in one sort.
        try await self.execute(
            "CREATE TEMP TABLE seed_likes_raw (card_id uuid NOT NULL, account_id uuid NOT NULL, created_at timestamptz NOT NULL)")
    }

    /// Stages `plan.accounts` accounts named by `names`, numbered after the `offset` existing
    /// ones; returns how many are staged (fewer only when a name or key is already taken).
    mutating func generateAccounts(names: SeedNicknames, offset: Int) async throws -> Int {
        let total = self.plan.accounts
        let early = self.earlyAccounts
        let late = max(1, total - early)
        for (low, high) in self.chunks(1...total) {
            let stemCount = names.stems.count
            try await self.execute(
                """
                WITH \(given: self.anchor, [("stems", names.stems), ("keys", names.keys), ("backgrounds", SeedVocabulary.backgrounds), ("bios", SeedVocabulary.bios)])
                INSERT INTO seed_accounts
                    (n, id, key_fingerprint, public_key, nickname, nickname_key, profile_image_kind, profile_image_ref, bio, created_at, poster)
                SELECT g, gen_random_uuid(), sha256(public_key), public_key,
                       (SELECT stems FROM given)[1 + ix % \(stemCount)] || CASE WHEN ix / \(stemCount) = 0 THEN '' ELSE (ix / \(stemCount))::text END,
                       (SELECT keys FROM given)[1 + ix % \(stemCount)] || CASE WHEN ix / \(stemCount) = 0 THEN '' ELSE (ix / \(stemCount))::text END,
                       CASE WHEN r_image < 0.35 THEN 'default' END,
                       CASE WHEN r_image < 0.35
                            THEN (SELECT backgrounds FROM given)[1 + floor(r_image / 0.35 * \(SeedVocabulary.backgrounds.count))::int] END,
                       CASE WHEN r_bio < 0.15 THEN (SELECT bios FROM given)[1 + floor(r_bio / 0.15 * \(SeedVocabulary.bios.count))::int] ELSE '' END,
                       created_at, g = 1 OR r_poster < 0.6
                FROM (
                    SELECT g, (\(offset) + g - 1)::bigint AS ix,
                           -- The shape of a P-256 SubjectPublicKeyInfo (91 bytes); nobody holds its private key.
                           \(SeedVocabulary.p256PublicKeyPrefix)::bytea || sha256(convert_to('soom-seed-x-' || (\(offset) + g), 'UTF8'))
                               || sha256(convert_to('soom-seed-y-' || (\(offset) + g), 'UTF8')) AS public_key,
                           random() AS r_image, random() AS r_bio, random() AS r_poster,
                           -- Early adopters over the span before the window, then growth towards now.
                           CASE WHEN g <= \(early)
                                THEN (SELECT anchor FROM given) - make_interval(secs => \(self.span) * (2 - (g - 1 + random()) / \(early)))
                                ELSE (SELECT anchor FROM given) - make_interval(secs => 60 + \(self.span - 60)
                                     * power(1 - (g - \(early) - 1 + random()) / \(late), 1.6))
                           END AS created_at
                    FROM generate_series(\(low)::int, \(high)::int) AS g
                    OFFSET 0
                ) AS s
                """)
            self.progress(.progress(.accounts, done: high, total: total))
        }
        if offset > 0 {
            // Next to existing accounts: leave out any generated name or key that is already taken.
            try await self.execute(
                """
                DELETE FROM seed_accounts s
                WHERE EXISTS (SELECT 1 FROM accounts a WHERE a.nickname_key = s.nickname_key)
                   OR EXISTS (SELECT 1 FROM accounts a WHERE a.key_fingerprint = s.key_fingerprint)
                """)
        }
        try await self.execute("ANALYZE seed_accounts")
        self.stagedAccounts = try await self.count("SELECT count(*) FROM seed_accounts")
        return self.stagedAccounts
    }

    /// Stages `plan.cards` top-level cards, numbered 1…cards in `created_at` order, each by a
    /// poster whose account exists by then. Needs the staged accounts.
    mutating func generateCards() async throws -> Int {
        let total = self.plan.cards
        guard total > 0 else { return 0 }
        for (low, high) in self.chunks(1...total) {
            let tagCount = SeedVocabulary.tags.count
            let zipfTag = "least(\(tagCount), floor(exp(random() * ln(\(tagCount + 1))))::int)"
            let cities = SeedVocabulary.cities
            try await self.execute(
                """
                WITH \(given: self.anchor, [("tags", SeedVocabulary.tags), ("backgrounds", SeedVocabulary.backgrounds)] + SeedVocabulary.sentences),
                places AS MATERIALIZED (
                    SELECT \(cities.map(\.latitude))::float8[] AS latitudes, \(cities.map(\.longitude))::float8[] AS longitudes,
                           \(cities.map(\.spread))::float8[] AS spreads, \(SeedVocabulary.cityThresholds)::float8[] AS thresholds
                ), posters AS MATERIALIZED (
                    SELECT array_agg(id ORDER BY created_at, n) AS ids, array_agg(created_at ORDER BY created_at, n) AS times
                    FROM seed_accounts WHERE poster
                ), r AS MATERIALIZED (
                    SELECT g,
                           -- Ascending with g (so the table ends up in time order), denser towards now.
                           (SELECT anchor FROM given) - make_interval(secs => 60 + \(self.span - 60) * power(1 - (g - 1 + random()) / \(total), 1.6))
                               AS created_at,
                           random() AS r_language, random() AS r_length, random() AS r_font, random() AS r_background,
                           random() AS r_location, random() AS r_story, random() AS r_tags,
                           \(unescaped: zipfTag) AS t1, \(unescaped: zipfTag) AS t2, \(unescaped: zipfTag) AS t3,
                           width_bucket(random(), (SELECT thresholds FROM places)) AS city,
                           (random() + random() + random() - 1.5) / 1.5 AS jitter_x,
                           (random() + random() + random() - 1.5) / 1.5 AS jitter_y
                    FROM generate_series(\(low)::int, \(high)::int) AS g
                )
                INSERT INTO seed_cards
                    (n, id, author_id, parent_id, content, font, background_kind, background_ref, tags, latitude, longitude, created_at, expires_at)
                SELECT g, gen_random_uuid(),
                       -- Among accounts that exist by then and post; the earlier, the more they post.
                       (SELECT ids FROM posters)[1 + floor(width_bucket(created_at, (SELECT times FROM posters)) * power(random(), 1.8))::int],
                       NULL,
                       \(unescaped: SeedVocabulary.cardContent(language: "r_language", length: "r_length")),
                       \(unescaped: SeedVocabulary.font("r_font")),
                       CASE WHEN r_background < 0.02 THEN 'upload' ELSE 'default' END,
                       CASE WHEN r_background < 0.02 THEN gen_random_uuid()::text
                            ELSE (SELECT backgrounds FROM given)[1 + floor(\(SeedVocabulary.backgrounds.count) * power((r_background - 0.02) / 0.98, 1.25))::int] END,
                       array_remove(ARRAY[
                           CASE WHEN r_tags >= 0.30 THEN (SELECT tags FROM given)[t1] END,
                           CASE WHEN r_tags >= 0.65 AND t2 <> t1 THEN (SELECT tags FROM given)[t2] END,
                           CASE WHEN r_tags >= 0.87 AND t3 <> t1 AND t3 <> t2 THEN (SELECT tags FROM given)[t3] END], NULL),
                       CASE WHEN r_location < 0.10
                            THEN round(least(89.9, greatest(-89.9, (SELECT latitudes FROM places)[city] + jitter_y * (SELECT spreads FROM places)[city]))::numeric, 6)::float8 END,
                       CASE WHEN r_location < 0.10
                            THEN round(least(179.9, greatest(-179.9, (SELECT longitudes FROM places)[city] + jitter_x * 1.25 * (SELECT spreads FROM places)[city]))::numeric, 6)::float8 END,
                       created_at,
                       CASE WHEN r_story < 0.03 THEN created_at + interval '24 hours' END
                FROM r
                ORDER BY g
                """)
            self.progress(.progress(.cards, done: high, total: total))
        }
        return total
    }

    /// Stages `plan.comments` comment cards on staged top-level cards, numbered after them.
    mutating func generateComments() async throws -> Int {
        let total = self.plan.comments
        let cards = self.plan.cards
        guard total > 0 else { return 0 }
        for (low, high) in self.chunks(1...total) {
            let tagCount = SeedVocabulary.tags.count
            try await self.execute(
                """
                WITH \(given: self.anchor, [("tags", SeedVocabulary.tags), ("backgrounds", SeedVocabulary.backgrounds)] + SeedVocabulary.sentences),
                \(unescaped: self.cardArrays), \(unescaped: self.accountArrays), r AS MATERIALIZED (
                    SELECT g,
                           -- A power-law popularity rank, scattered over cards of all ages.
                           1 + (floor(\(cards) * power(random(), 3))::bigint * \(self.scatter)) % \(cards) AS pos,
                           random() AS r_delay, random() AS r_language, random() AS r_font, random() AS r_background, random() AS r_tag,
                           least(\(tagCount), floor(exp(random() * ln(\(tagCount + 1))))::int) AS t1
                    FROM generate_series(\(low)::int, \(high)::int) AS g
                ), t AS MATERIALIZED (
                    SELECT r.*, (SELECT ids FROM top)[pos] AS parent_id,
                           -- After the parent (within a story's life), mostly soon after it.
                           (SELECT times FROM top)[pos] + (least((SELECT anchor FROM given), (SELECT ends FROM top)[pos]) - (SELECT times FROM top)[pos])
                               * (0.0005 + 0.9995 * power(r_delay, 4)) AS created_at
                    FROM r
                )
                INSERT INTO seed_cards
                    (n, id, author_id, parent_id, content, font, background_kind, background_ref, tags, latitude, longitude, created_at, expires_at)
                SELECT \(cards + low - 1) + row_number() OVER (ORDER BY created_at), gen_random_uuid(),
                       (SELECT ids FROM people)[1 + floor(width_bucket(created_at, (SELECT times FROM people)) * power(random(), 1.4))::int],
                       parent_id,
                       \(unescaped: SeedVocabulary.commentContent(language: "r_language")),
                       \(unescaped: SeedVocabulary.font("r_font")),
                       'default',
                       (SELECT backgrounds FROM given)[1 + floor(r_background * \(SeedVocabulary.backgrounds.count))::int],
                       CASE WHEN r_tag < 0.05 THEN ARRAY[(SELECT tags FROM given)[t1]] ELSE '{}'::text[] END,
                       NULL, NULL, created_at, NULL
                FROM t
                ORDER BY created_at
                """)
            self.progress(.progress(.comments, done: high, total: total))
        }
        return total
    }

    /// Stages up to `plan.likes` unique likes in `seed_likes` (always created, maybe empty);
    /// returns how many, fewer only when distinct (card, account) pairs run out.
    mutating func generateLikes() async throws -> Int {
        let target = self.plan.likes
        guard target > 0 else {
            try await self.execute("CREATE TEMP TABLE seed_likes AS SELECT * FROM seed_likes_raw")
            return 0
        }
        // Draw the requested number of (card, account) pairs, keep the distinct ones, then top up
        // the few duplicates' worth until the count is reached.
        let chunk = max(self.plan.chunkSize, 500_000)
        var drawn = 0
        while drawn < target {
            let attempt = min(chunk, target - drawn)
            try await self.execute(self.likesStatement(count: attempt, into: "seed_likes_raw"))
            drawn += attempt
            self.progress(.progress(.likes, done: drawn, total: target))
        }
        try await self.execute(
            """
            CREATE TEMP TABLE seed_likes AS
            SELECT DISTINCT ON (card_id, account_id) card_id, account_id, created_at FROM seed_likes_raw ORDER BY card_id, account_id
            """)
        try await self.execute("DROP TABLE seed_likes_raw")
        try await self.execute("ALTER TABLE seed_likes ADD PRIMARY KEY (card_id, account_id)")
        var staged = try await self.count("SELECT count(*) FROM seed_likes")
        self.progress(.progress(.likes, done: staged, total: target))
        var idleRounds = 0
        while staged < target {
            let attempt = min(chunk, target - staged)
            let inserted = try await self.count(
                self.likesStatement(count: attempt, into: "seed_likes"))
            staged += inserted
            self.progress(.progress(.likes, done: staged, total: target))
            // Saturated: the popular cards have been liked by nearly everyone who could.
            idleRounds = inserted * 100 < attempt ? idleRounds + 1 : 0
            if idleRounds >= 3 {
                self.progress(.note("likes: stopped at \(staged) of \(target), too few distinct (card, account) pairs left"))
                break
            }
        }
        return staged
    }

    /// Draws `count` likes into `table` (`seed_likes_raw` or `seed_likes`): a popular card (6% a
    /// comment card) and anyone whose account exists by the time of the like, which falls between
    /// the card's creation and now (or the story's end). Answers how many rows it added (a pair
    /// `seed_likes` already holds is left out).
    private func likesStatement(count: Int, into table: StaticString) -> PostgresQuery {
        let cards = self.plan.cards
        let comments = self.plan.comments
        return """
            WITH \(given: self.anchor), \(unescaped: self.cardArrays), \(unescaped: self.commentArrays), \(unescaped: self.accountArrays),
            r AS MATERIALIZED (
                SELECT on_comment,
                       CASE WHEN on_comment THEN 1 + floor(random() * \(max(comments, 1)))::bigint
                            ELSE 1 + (floor(\(cards) * power(random(), 3))::bigint * \(self.scatter)) % \(cards) END AS pos,
                       random() AS r_delay
                FROM (SELECT \(comments > 0) AND random() < 0.06 AS on_comment FROM generate_series(1, \(count)) OFFSET 0) AS g
            ), t AS (
                SELECT CASE WHEN on_comment THEN (SELECT ids FROM replies)[pos] ELSE (SELECT ids FROM top)[pos] END AS card_id,
                       CASE WHEN on_comment THEN (SELECT times FROM replies)[pos] ELSE (SELECT times FROM top)[pos] END AS card_time,
                       CASE WHEN on_comment THEN (SELECT anchor FROM given) ELSE least((SELECT anchor FROM given), (SELECT ends FROM top)[pos]) END
                           AS card_end,
                       r_delay
                FROM r
            ), l AS (
                SELECT card_id, card_time + (card_end - card_time) * (0.0005 + 0.9995 * power(r_delay, 3)) AS created_at FROM t
            ), inserted AS (
                INSERT INTO \(unescaped: "\(table)") (card_id, account_id, created_at)
                SELECT card_id, (SELECT ids FROM people)[1 + floor(width_bucket(created_at, (SELECT times FROM people)) * random())::int],
                       created_at
                FROM l
                ON CONFLICT DO NOTHING RETURNING 1
            )
            SELECT count(*) FROM inserted
            """
    }

    /// Counters per staged card and author, followers and followings per staged account; lookup
    /// indexes and statistics for the writes.
    mutating func tally() async throws -> Int {
        try await self.execute(
            """
            CREATE TEMP TABLE seed_counts AS
            SELECT coalesce(l.id, c.id) AS id, coalesce(l.likes, 0) AS like_count, coalesce(c.comments, 0) AS comment_count
            FROM (SELECT card_id AS id, count(*)::int AS likes FROM seed_likes GROUP BY card_id) AS l
            FULL JOIN (
                SELECT parent_id AS id, count(*)::int AS comments FROM seed_cards
                WHERE parent_id IS NOT NULL AND (expires_at IS NULL OR expires_at > now())
                GROUP BY parent_id
            ) AS c ON c.id = l.id
            """)
        try await self.execute("ALTER TABLE seed_counts ADD PRIMARY KEY (id)")
        try await self.execute(
            "CREATE TEMP TABLE seed_author_counts AS SELECT author_id AS id, count(*)::int AS cards FROM seed_cards WHERE parent_id IS NULL GROUP BY author_id"
        )
        try await self.execute("ALTER TABLE seed_author_counts ADD PRIMARY KEY (id)")
        try await self.execute(
            """
            CREATE TEMP TABLE seed_follow_counts AS
            SELECT coalesce(i.id, o.id) AS id, coalesce(i.n, 0) AS followers, coalesce(o.n, 0) AS following
            FROM (SELECT followee_id AS id, count(*)::int AS n FROM seed_follows GROUP BY followee_id) AS i
            FULL JOIN (SELECT follower_id AS id, count(*)::int AS n FROM seed_follows GROUP BY follower_id) AS o ON o.id = i.id
            """)
        try await self.execute("ALTER TABLE seed_follow_counts ADD PRIMARY KEY (id)")
        try await self.execute("CREATE INDEX ON seed_cards (n)")
        try await self.execute("ANALYZE seed_accounts, seed_cards, seed_likes, seed_counts, seed_author_counts, seed_follow_counts")
        return try await self.count("SELECT count(*) FROM seed_counts")
    }
}
