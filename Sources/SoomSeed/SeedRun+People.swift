import PostgresNIO
import SoomData

// The social graph and favourite tags: follows are generated with the other staged rows (phase 1)
// and written after the likes; favourite tags are chosen inside the writing transaction, among the
// `tags` rows that exist by then (the seeded cards' tags included).
extension SeedRun {
    /// A multiplier coprime with `accounts`, so that `rank → 1 + (rank - 1) * step mod accounts`
    /// (`followsStatement`) is a bijection.
    static func followStep(accounts: Int) -> Int {
        guard accounts > 1 else { return 1 }
        func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
        var step = max(1, 2_654_435_761 % accounts)
        while gcd(step, accounts) != 1 { step += 1 }
        return step
    }

    /// Stages `plan.followCount` unique follows among the staged accounts in `seed_follows`
    /// (always created, maybe empty); returns how many.
    ///
    /// Long-tailed: the most followed account (the oldest one) is followed by every other account
    /// (as far as the number allows); every other follow picks its followee by a Zipf-like
    /// popularity rank (density ∝ 1/rank, so a few accounts have thousands of followers and most
    /// have a handful) and its follower uniformly (about 20 followings each at the default). A
    /// follow happens after both accounts exist, mostly soon after the later one joined, and
    /// before now. Duplicates and self-follows are dropped and topped up; should random draws
    /// saturate (a nearly complete graph), the rest is filled from the missing pairs directly.
    mutating func generateFollows() async throws -> Int {
        try await self.execute(
            "CREATE TEMP TABLE seed_follows (follower_id uuid NOT NULL, followee_id uuid NOT NULL, created_at timestamptz NOT NULL)")
        let people = self.stagedAccounts
        let target = min(self.plan.followCount, people * max(0, people - 1))
        guard target > 0 else {
            try await self.execute("ALTER TABLE seed_follows ADD PRIMARY KEY (follower_id, followee_id)")
            return 0
        }
        let step = Self.followStep(accounts: people)

        // Everyone else follows the most followed account (rank 1, position 1).
        let star = min(target, people - 1)
        for (low, high) in self.chunks(2...(star + 1)) {
            try await self.execute(
                """
                WITH \(given: self.anchor), \(unescaped: self.accountArrays)
                INSERT INTO seed_follows (follower_id, followee_id, created_at)
                SELECT (SELECT ids FROM people)[g], (SELECT ids FROM people)[1], \(unescaped: Self.followTime(follower: "g", followee: "1"))
                FROM generate_series(\(low)::int, \(high)::int) AS g
                """)
            self.progress(.progress(.follows, done: high - 1, total: target))
        }
        var staged = star

        // The long tail: followees of rank 2…accounts (never the star, so never a duplicate of
        // the rows above), drawn raw, then de-duplicated in one sort and topped up.
        let chunk = max(self.plan.chunkSize, 500_000)
        while staged < target {
            let attempt = min(chunk, target - staged)
            try await self.execute(self.followsStatement(count: attempt, step: step))
            staged += attempt
            self.progress(.progress(.follows, done: staged, total: target))
        }
        try await self.execute(
            """
            CREATE TEMP TABLE seed_follows_unique AS
            SELECT DISTINCT ON (follower_id, followee_id) follower_id, followee_id, created_at FROM seed_follows
            WHERE follower_id <> followee_id
            ORDER BY follower_id, followee_id
            """)
        try await self.execute("DROP TABLE seed_follows")
        try await self.execute("ALTER TABLE seed_follows_unique RENAME TO seed_follows")
        try await self.execute("ALTER TABLE seed_follows ADD PRIMARY KEY (follower_id, followee_id)")
        staged = try await self.count("SELECT count(*) FROM seed_follows")
        self.progress(.progress(.follows, done: staged, total: target))
        var idleRounds = 0
        while staged < target && idleRounds < 3 {
            let attempt = min(chunk, target - staged)
            let inserted = try await self.count(self.followsStatement(count: attempt, step: step))
            staged += inserted
            self.progress(.progress(.follows, done: staged, total: target))
            idleRounds = inserted * 100 < attempt ? idleRounds + 1 : 0
        }
        if staged < target {
            // Saturated: nearly every pair is taken, so the missing ones are few enough to list.
            staged += try await self.count(
                """
                WITH \(given: self.anchor), \(unescaped: self.accountArrays), inserted AS (
                    INSERT INTO seed_follows (follower_id, followee_id, created_at)
                    SELECT (SELECT ids FROM people)[f], (SELECT ids FROM people)[e], \(unescaped: Self.followTime(follower: "f", followee: "e"))
                    FROM generate_series(1, \(people)::int) AS f, generate_series(1, \(people)::int) AS e
                    WHERE f <> e AND NOT EXISTS (
                        SELECT 1 FROM seed_follows AS s
                        WHERE s.follower_id = (SELECT ids FROM people)[f] AND s.followee_id = (SELECT ids FROM people)[e])
                    ORDER BY random()
                    LIMIT \(target - staged)
                    RETURNING 1
                )
                SELECT count(*) FROM inserted
                """)
            self.progress(.progress(.follows, done: staged, total: target))
        }
        try await self.execute("ANALYZE seed_follows")
        return staged
    }

    /// When `follower` started following `followee` (positions in `people`): after both accounts
    /// exist, mostly soon after the later one joined, before the `given` anchor (now).
    private static func followTime(follower: String, followee: String) -> String {
        """
        greatest((SELECT times FROM people)[\(follower)], (SELECT times FROM people)[\(followee)])
            + ((SELECT anchor FROM given) - greatest((SELECT times FROM people)[\(follower)], (SELECT times FROM people)[\(followee)]))
              * (0.0005 + 0.9995 * power(random(), 2))
        """
    }

    /// Draws `count` follows of the long tail into `seed_follows`: a followee of popularity rank
    /// 2…accounts with density ∝ 1/rank, a uniform follower, self-follows left out. Answers how
    /// many rows it added (once `seed_follows` has its primary key, a pair it holds is left out).
    private func followsStatement(count: Int, step: Int) -> PostgresQuery {
        let people = self.stagedAccounts
        // The followee: popularity rank r (1 = most followed) → position in `people` (oldest
        // first), a bijection on 1…accounts: rank 1 is the oldest account, the others are
        // scattered over accounts of all ages.
        return """
            WITH \(given: self.anchor), \(unescaped: self.accountArrays), d AS MATERIALIZED (
                SELECT 1 + floor(random() * \(people))::int AS f, (1 + (r - 1) * \(step) % \(people))::int AS e
                FROM (SELECT (1 + least(\(people - 1), floor(exp(random() * ln(\(people))))::int))::bigint AS r
                      FROM generate_series(1, \(count)) OFFSET 0) AS g
            ), inserted AS (
                INSERT INTO seed_follows (follower_id, followee_id, created_at)
                SELECT (SELECT ids FROM people)[f], (SELECT ids FROM people)[e], \(unescaped: Self.followTime(follower: "f", followee: "e"))
                FROM d WHERE f <> e
                ON CONFLICT DO NOTHING RETURNING 1
            )
            SELECT count(*) FROM inserted
            """
    }

    /// Inserts the staged follows in primary-key order; returns how many.
    mutating func writeFollows() async throws -> Int {
        let total = try await self.count("SELECT count(*) FROM seed_follows")
        let pieces = max(1, (total + self.plan.chunkSize - 1) / self.plan.chunkSize)
        var written = 0
        // Ranges of follower ids (random v4 uuids spread evenly), each read in primary-key order.
        for index in 0..<pieces {
            let (low, high) = Self.uuidRange(index, of: pieces)
            written += try await self.count(
                """
                WITH inserted AS (
                    INSERT INTO follows (follower_id, followee_id, created_at)
                    SELECT follower_id, followee_id, created_at FROM seed_follows
                    WHERE follower_id >= \(low) AND (\(high)::uuid IS NULL OR follower_id < \(high))
                    ORDER BY follower_id, followee_id
                    RETURNING 1
                )
                SELECT count(*) FROM inserted
                """)
            self.progress(.progress(.writeFollows, done: written, total: total))
        }
        self.summary.follows = written
        return written
    }

    /// Chooses `plan.favoriteCount` favourite tags for the seeded accounts among the `tags` rows
    /// (the seeded cards' tags are written by now) and writes them; returns how many.
    ///
    /// The tag of each draw has a Zipf-like rank by usage count (popular tags are favoured far
    /// more often); the account is any seeded one, older accounts a little more often. No account
    /// gets more than `Plan.maximumFavoritesPerAccount`. A favourite is made after its account
    /// exists and after the tag was first used (when a card carries it), before now.
    mutating func writeFavorites() async throws -> Int {
        let people = self.stagedAccounts
        let target = min(self.plan.favoriteCount, Seeder.Plan.maximumFavoritesPerAccount * people)
        guard target > 0 else { return 0 }
        let limit = Seeder.Plan.maximumFavoritesPerAccount
        try await self.execute(
            """
            CREATE TEMP TABLE seed_tag_ranks ON COMMIT DROP AS
            SELECT row_number() OVER (ORDER BY t.usage_count DESC, t.key)::int AS rank, t.key, t.name, u.first_used
            FROM tags AS t LEFT JOIN (SELECT tag_key, min(created_at) AS first_used FROM card_tags GROUP BY tag_key) AS u ON u.tag_key = t.key
            """)
        try await self.execute("ALTER TABLE seed_tag_ranks ADD PRIMARY KEY (rank)")
        let tagCount = try await self.count("SELECT count(*) FROM seed_tag_ranks")
        guard tagCount > 0 else {
            self.progress(.note("favourite tags: no tags to choose from (no card carries one)"))
            return 0
        }
        try await self.execute(
            """
            CREATE TEMP TABLE seed_favorites (
                account_id uuid NOT NULL, tag_key text COLLATE "C" NOT NULL, name text NOT NULL, created_at timestamptz NOT NULL,
                PRIMARY KEY (account_id, tag_key)) ON COMMIT DROP
            """)
        try await self.execute(
            "CREATE TEMP TABLE seed_favorite_draws (account_id uuid NOT NULL, rank integer NOT NULL, created_at timestamptz NOT NULL) ON COMMIT DROP"
        )
        var staged = 0
        var idleRounds = 0
        while staged < target && idleRounds < 3 {
            let remaining = target - staged
            try await self.execute("TRUNCATE seed_favorite_draws")
            try await self.execute(
                """
                WITH \(given: self.anchor), \(unescaped: self.accountArrays), d AS MATERIALIZED (
                    SELECT 1 + floor(\(people) * power(random(), 1.3))::int AS a,
                           least(\(tagCount), floor(exp(random() * ln(\(tagCount + 1))))::int)::int AS rank
                    FROM generate_series(1, \(remaining + remaining / 10 + 100))
                )
                INSERT INTO seed_favorite_draws (account_id, rank, created_at)
                SELECT (SELECT ids FROM people)[a], d.rank, \(unescaped: Self.favoriteTime)
                FROM d JOIN seed_tag_ranks AS r ON r.rank = d.rank
                """)
            let inserted = try await self.count(self.keepFavorites(limit: limit, remaining: remaining))
            staged += inserted
            self.progress(.progress(.favorites, done: staged, total: target))
            idleRounds = inserted * 100 < remaining ? idleRounds + 1 : 0
        }
        if staged < target {
            // Saturated (nearly everyone has nine, or there are few tags): each account's best-ranked
            // tags it does not have yet; 2 × limit candidates per account always leave it room.
            try await self.execute("TRUNCATE seed_favorite_draws")
            try await self.execute(
                """
                WITH \(given: self.anchor), \(unescaped: self.accountArrays)
                INSERT INTO seed_favorite_draws (account_id, rank, created_at)
                SELECT (SELECT ids FROM people)[a], r.rank, \(unescaped: Self.favoriteTime)
                FROM generate_series(1, \(people)::int) AS a, seed_tag_ranks AS r
                WHERE r.rank <= \(2 * limit)
                """)
            staged += try await self.count(self.keepFavorites(limit: limit, remaining: target - staged))
            self.progress(.progress(.favorites, done: staged, total: target))
        }
        if staged < target {
            self.progress(.note("favourite tags: stopped at \(staged) of \(target), only \(tagCount) tags to choose from"))
        }
        self.summary.favorites = try await self.count(
            """
            WITH inserted AS (
                INSERT INTO favorite_tags (account_id, tag_key, name, created_at)
                SELECT account_id, tag_key, name, created_at FROM seed_favorites ORDER BY account_id, tag_key
                RETURNING 1
            )
            SELECT count(*) FROM inserted
            """)
        return self.summary.favorites
    }

    /// When the account at position `a` of `people` made the tag `r` (a `seed_tag_ranks` row) a
    /// favourite: after the account exists and the tag was first used, before the `given` anchor.
    private static let favoriteTime = """
        greatest((SELECT times FROM people)[a], r.first_used)
            + ((SELECT anchor FROM given) - greatest((SELECT times FROM people)[a], r.first_used)) * (0.0005 + 0.9995 * random())
        """

    /// Moves drawn favourites (`seed_favorite_draws`) into `seed_favorites`: new (account, tag)
    /// pairs only, no account beyond `limit`, at most `remaining` rows, chosen at random among
    /// those that fit.
    private func keepFavorites(limit: Int, remaining: Int) -> PostgresQuery {
        """
        WITH fresh AS (
            SELECT DISTINCT ON (d.account_id, r.key) d.account_id, r.key, r.name, d.created_at
            FROM seed_favorite_draws AS d JOIN seed_tag_ranks AS r ON r.rank = d.rank
            WHERE NOT EXISTS (SELECT 1 FROM seed_favorites AS f WHERE f.account_id = d.account_id AND f.tag_key = r.key)
            ORDER BY d.account_id, r.key, random()
        ), ranked AS (
            SELECT fresh.*, row_number() OVER (PARTITION BY fresh.account_id ORDER BY random()) AS k, coalesce(h.n, 0) AS have
            FROM fresh LEFT JOIN (SELECT account_id, count(*) AS n FROM seed_favorites GROUP BY account_id) AS h
                ON h.account_id = fresh.account_id
        ), inserted AS (
            INSERT INTO seed_favorites (account_id, tag_key, name, created_at)
            SELECT account_id, key, name, created_at FROM ranked
            WHERE k <= \(limit) - have
            ORDER BY random()
            LIMIT \(remaining)
            RETURNING 1
        )
        SELECT count(*) FROM inserted
        """
    }
}
