import Foundation
import Logging
import PostgresNIO
import SoomDomain

/// Fills a database with realistic demo and benchmark data (`soom seed`), fast.
///
/// Every phase is a handful of set-based statements — `generate_series`, bound word arrays,
/// `width_bucket` over sorted arrays — never a statement per row:
///
/// 1. **Generate** accounts, top-level cards, comment cards and likes into session-private
///    temporary tables (no WAL, no indexes to maintain), in chunks so progress shows and memory
///    stays bounded. Likes are unique pairs (a primary key plus `ON CONFLICT DO NOTHING`, topped
///    up until the requested number is reached).
/// 2. **Tally** like and comment counts per card and top-level cards per author there.
/// 3. **Write** everything into `accounts`, `images`, `cards` and `likes` in one transaction,
///    oldest first and with the counters already exact: a failure (or Ctrl-C) leaves the database
///    as it was, and the tables come out unbloated, in `created_at` order like a real one.
/// 4. **Recount** the counters set-based over the whole tables (fixes nothing unless something
///    else wrote meanwhile), then `VACUUM (ANALYZE)`.
///
/// The data is plausible on purpose: activity grows towards the present, accounts only act after
/// they were created, likes and comments come after their card (within a story's 24 hours), a few
/// heavy posters and viral cards, a long-tailed tag vocabulary, Korean and English text.
public struct Seeder: Sendable {
    /// How much to create.
    public struct Plan: Sendable, Equatable {
        /// Accounts to create.
        public var accounts: Int
        /// Top-level cards.
        public var cards: Int
        /// Comment cards (cards with a parent).
        public var comments: Int
        /// Likes: unique (card, account) pairs.
        public var likes: Int
        /// `created_at` spreads over this many days before now.
        public var days: Int
        /// Rows per generating or writing statement.
        public var chunkSize: Int

        public init(
            accounts: Int = 50_000, cards: Int = 1_000_000, comments: Int = 200_000, likes: Int = 2_000_000, days: Int = 60,
            chunkSize: Int = 200_000
        ) {
            self.accounts = accounts
            self.cards = cards
            self.comments = comments
            self.likes = likes
            self.days = days
            self.chunkSize = chunkSize
        }

        /// Throws `SeedError.invalidPlan` naming the first impossible number.
        public func validate() throws(SeedError) {
            if self.accounts < 1 || self.accounts > 100_000_000 { throw .invalidPlan("accounts must be between 1 and 100,000,000") }
            if self.cards < 0 || self.cards > 1_000_000_000 { throw .invalidPlan("cards must be between 0 and 1,000,000,000") }
            if self.comments < 0 || self.comments > 1_000_000_000 { throw .invalidPlan("comments must be between 0 and 1,000,000,000") }
            if self.likes < 0 || self.likes > 2_000_000_000 { throw .invalidPlan("likes must be between 0 and 2,000,000,000") }
            if self.days < 1 || self.days > 3650 { throw .invalidPlan("days must be between 1 and 3650") }
            if self.chunkSize < 1_000 { throw .invalidPlan("chunk size must be at least 1,000") }
            if self.cards == 0 && (self.comments > 0 || self.likes > 0) {
                throw .invalidPlan("comments and likes need cards to attach to: use at least one card")
            }
            // Each card can be liked at most once per account.
            if Double(self.likes) > 0.5 * Double(self.cards + self.comments) * Double(self.accounts) {
                throw .invalidPlan("too many likes: at most half of cards × accounts can be unique (card, account) pairs here")
            }
        }
    }

    /// The steps of a run, in order.
    public enum Phase: String, Sendable, CaseIterable {
        case accounts, cards, comments, likes, tally
        case writeAccounts = "write-accounts"
        case writeCards = "write-cards"
        case writeLikes = "write-likes"
        case counters, analyze

        /// What the phase does, for progress lines.
        public var title: String {
            switch self {
            case .accounts: "generate accounts"
            case .cards: "generate cards"
            case .comments: "generate comment cards"
            case .likes: "generate likes"
            case .tally: "tally counters"
            case .writeAccounts: "write accounts"
            case .writeCards: "write cards, comment cards and images"
            case .writeLikes: "write likes"
            case .counters: "recount counters"
            case .analyze: "vacuum and analyze"
            }
        }
    }

    /// How long one phase took and how many rows it produced.
    public struct PhaseReport: Sendable {
        public let phase: Phase
        public let rows: Int
        public let duration: Duration
    }

    /// What `run` reports as it goes.
    public enum Event: Sendable {
        case started(Phase, total: Int)
        case progress(Phase, done: Int, total: Int)
        case finished(PhaseReport)
        case note(String)
    }

    /// The rows a run added, and its timings.
    public struct Summary: Sendable {
        public var accounts = 0
        public var cards = 0
        public var comments = 0
        public var likes = 0
        /// Uploaded backgrounds (a tiny PNG each) of the few cards that do not use a built-in one.
        public var images = 0
        /// Counters the final recount had to correct (0 unless something else wrote meanwhile).
        public var correctedCounters = 0
        public var phases: [PhaseReport] = []
        public var duration: Duration = .zero
    }

    public let configuration: DatabaseConfiguration
    public let logger: Logger

    public init(configuration: DatabaseConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Seeds the (migrated) database: opens a pool, works on one connection, closes the pool.
    /// - Parameters:
    ///   - allowExistingAccounts: seed next to accounts that are already there; otherwise a
    ///     database with accounts is refused with `SeedError.databaseNotEmpty`, changing nothing.
    ///   - progress: called as phases start, advance and finish.
    public func run(
        _ plan: Plan, allowExistingAccounts: Bool = false, progress: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws -> Summary {
        try plan.validate()
        let client = PostgresClient(configuration: self.configuration.clientConfiguration, backgroundLogger: self.logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            // Let run() start first: leasing before it only works after a warning in the log.
            try await Task.sleep(for: .milliseconds(50))
            return try await client.withConnection { connection in
                var run = SeedRun(connection: connection, logger: self.logger, plan: plan, progress: progress)
                return try await run.execute(allowExistingAccounts: allowExistingAccounts)
            }
        }
    }
}

/// Why seeding did not happen; each message says what to do.
public enum SeedError: Error, CustomStringConvertible, Sendable, Equatable {
    case databaseNotEmpty(accounts: Int)
    case invalidPlan(String)
    case nicknamesExhausted(Int)
    /// Rows that would violate a foreign key (a bug): nothing was written.
    case brokenReferences(Int)

    public var description: String {
        switch self {
        case .databaseNotEmpty(let accounts):
            "The database already has \(accounts) account\(accounts == 1 ? "" : "s"); seeding is meant for an empty one. "
                + "Use --force to add the demo data next to them anyway, or point DATABASE_URL / --data-directory at an empty database."
        case .invalidPlan(let reason):
            "Cannot seed: \(reason)."
        case .nicknamesExhausted(let count):
            "Cannot make \(count) distinct nicknames of at most \(Nickname.maximumLength) characters; seed fewer accounts."
        case .brokenReferences(let count):
            "Seeding stopped before committing: \(count) generated rows reference rows that do not exist. Nothing was written."
        }
    }
}

// MARK: - The run

/// One run on one connection (temporary tables live in its session).
private struct SeedRun {
    let connection: PostgresConnection
    let logger: Logger
    let plan: Seeder.Plan
    let progress: @Sendable (Seeder.Event) -> Void
    var summary = Seeder.Summary()

    /// Only seeds' own times: everything generated happens before this instant.
    var anchor = Date()
    /// The seconds `created_at` spreads over.
    var span: Double { Double(self.plan.days) * 86_400 }
    /// Accounts created before the window (early adopters): they can author the first cards.
    var earlyAccounts: Int { max(1, self.plan.accounts / 5) }
    /// A prime that does not divide the card count: `rank * p mod n` scatters popularity ranks
    /// over cards of all ages (viral cards are not simply the oldest ones).
    var scatter: Int64 = 2_654_435_761

    init(connection: PostgresConnection, logger: Logger, plan: Seeder.Plan, progress: @escaping @Sendable (Seeder.Event) -> Void) {
        self.connection = connection
        self.logger = logger
        self.plan = plan
        self.progress = progress
        while plan.cards > 0 && Int64(plan.cards) % self.scatter == 0 { self.scatter += 2 }
    }

    mutating func execute(allowExistingAccounts: Bool) async throws -> Seeder.Summary {
        let started = ContinuousClock.now
        let existing = try await self.count("SELECT count(*) FROM accounts")
        if existing > 0 && !allowExistingAccounts { throw SeedError.databaseNotEmpty(accounts: existing) }
        if existing > 0 { self.progress(.note("adding to \(existing) existing accounts (--force)")) }
        let names = try SeedNicknames.choose(accounts: self.plan.accounts, offset: existing)

        // Bulk-work session: room for the temporary tables in memory, big sorts and hashes, no timeouts.
        for setting in [
            "SET temp_buffers = '512MB'", "SET work_mem = '256MB'", "SET maintenance_work_mem = '512MB'", "SET statement_timeout = 0",
            "SET idle_in_transaction_session_timeout = 0", "SET synchronous_commit = off", "SET jit = off",
        ] {
            try await self.execute(PostgresQuery(unsafeSQL: setting))
        }
        self.anchor = try await self.connection.query("SELECT now()", logger: self.logger).collect()[0].decode(Date.self)
        try await self.createStagingTables()

        try await self.phase(.accounts, total: self.plan.accounts) { run in try await run.generateAccounts(names: names, offset: existing) }
        try await self.phase(.cards, total: self.plan.cards) { run in try await run.generateCards() }
        try await self.phase(.comments, total: self.plan.comments) { run in try await run.generateComments() }
        try await self.phase(.likes, total: self.plan.likes) { run in try await run.generateLikes() }
        try await self.phase(.tally, total: 0) { run in try await run.tally() }

        // All or nothing: the real tables change in one transaction.
        try await self.execute("BEGIN")
        do {
            try await self.execute("SET LOCAL synchronous_commit = off")
            let withoutTriggers = try await self.disableTriggersIfSafe()
            let staged = try await self.stagedCounts()
            try await self.phase(.writeAccounts, total: staged.accounts) { run in try await run.writeAccounts() }
            try await self.phase(.writeCards, total: staged.cards) { run in try await run.writeCards() }
            try await self.phase(.writeLikes, total: staged.likes) { run in try await run.writeLikes() }
            try await self.phase(.counters, total: 0) { run in
                if withoutTriggers {
                    try await run.execute("SET LOCAL session_replication_role = origin")
                    try await run.verifyReferences()
                }
                return try await run.recountCounters()
            }
            try await self.execute("COMMIT")
        } catch {
            try? await self.execute("ROLLBACK")
            throw error
        }
        try await self.execute("DISCARD TEMP")
        try await self.phase(.analyze, total: 0) { run in
            // Not in a transaction: VACUUM sets the visibility map (index-only scans) and hint bits.
            try await run.execute("VACUUM (ANALYZE) accounts, images, cards, likes")
            return 0
        }
        self.summary.duration = started.duration(to: .now)
        return self.summary
    }

    /// Runs one phase, timing it; `body` returns the rows it produced.
    private mutating func phase(_ phase: Seeder.Phase, total: Int, _ body: (inout SeedRun) async throws -> Int) async throws {
        self.progress(.started(phase, total: total))
        let started = ContinuousClock.now
        let rows = try await body(&self)
        let report = Seeder.PhaseReport(phase: phase, rows: rows, duration: started.duration(to: .now))
        self.summary.phases.append(report)
        self.progress(.finished(report))
    }

    // MARK: Staging

    private func createStagingTables() async throws {
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

    private mutating func generateAccounts(names: SeedNicknames, offset: Int) async throws -> Int {
        let total = self.plan.accounts
        let early = self.earlyAccounts
        let late = max(1, total - early)
        for (low, high) in self.chunks(1...total) {
            var sql = SeedSQL()
            let anchor = try sql.bind(self.anchor)
            let stems = try sql.bindArray(names.stems, type: "text[]")
            let keys = try sql.bindArray(names.keys, type: "text[]")
            let backgrounds = try sql.bindArray(SeedVocabulary.backgrounds, type: "text[]")
            let bios = try sql.bindArray(SeedVocabulary.bios, type: "text[]")
            let spkiPrefix = try sql.bind(SeedVocabulary.p256PublicKeyPrefix)
            let stemCount = names.stems.count
            try await self.execute(
                sql.query(
                    """
                    INSERT INTO seed_accounts
                        (n, id, key_fingerprint, public_key, nickname, nickname_key, profile_image_kind, profile_image_ref, bio, created_at, poster)
                    SELECT g, gen_random_uuid(), sha256(public_key), public_key,
                           \(stems)[1 + ix % \(stemCount)] || CASE WHEN ix / \(stemCount) = 0 THEN '' ELSE (ix / \(stemCount))::text END,
                           \(keys)[1 + ix % \(stemCount)] || CASE WHEN ix / \(stemCount) = 0 THEN '' ELSE (ix / \(stemCount))::text END,
                           CASE WHEN r_image < 0.35 THEN 'default' END,
                           CASE WHEN r_image < 0.35 THEN \(backgrounds)[1 + floor(r_image / 0.35 * \(SeedVocabulary.backgrounds.count))::int] END,
                           CASE WHEN r_bio < 0.15 THEN \(bios)[1 + floor(r_bio / 0.15 * \(SeedVocabulary.bios.count))::int] ELSE '' END,
                           created_at, g = 1 OR r_poster < 0.6
                    FROM (
                        SELECT g, (\(offset) + g - 1)::bigint AS ix,
                               -- The shape of a P-256 SubjectPublicKeyInfo (91 bytes); nobody holds its private key.
                               \(spkiPrefix)::bytea || sha256(convert_to('soom-seed-x-' || (\(offset) + g), 'UTF8'))
                                   || sha256(convert_to('soom-seed-y-' || (\(offset) + g), 'UTF8')) AS public_key,
                               random() AS r_image, random() AS r_bio, random() AS r_poster,
                               -- Early adopters over the span before the window, then growth towards now.
                               CASE WHEN g <= \(early)
                                    THEN \(anchor) - make_interval(secs => \(self.span) * (2 - (g - 1 + random()) / \(early)))
                                    ELSE \(anchor) - make_interval(secs => 60 + \(self.span - 60)
                                         * power(1 - (g - \(early) - 1 + random()) / \(late), 1.6))
                               END AS created_at
                        FROM generate_series(\(low), \(high)) AS g
                        OFFSET 0
                    ) AS s
                    """))
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
        return try await self.count("SELECT count(*) FROM seed_accounts")
    }

    private mutating func generateCards() async throws -> Int {
        let total = self.plan.cards
        guard total > 0 else { return 0 }
        for (low, high) in self.chunks(1...total) {
            var sql = SeedSQL()
            let anchor = try sql.bind(self.anchor)
            let content = try SeedVocabulary.cardContent(&sql, language: "r_language", length: "r_length")
            let tags = try sql.bindArray(SeedVocabulary.tags, type: "text[]")
            let backgrounds = try sql.bindArray(SeedVocabulary.backgrounds, type: "text[]")
            let latitudes = try sql.bindArray(SeedVocabulary.cities.map(\.latitude), type: "float8[]")
            let longitudes = try sql.bindArray(SeedVocabulary.cities.map(\.longitude), type: "float8[]")
            let spreads = try sql.bindArray(SeedVocabulary.cities.map(\.spread), type: "float8[]")
            let cityBuckets = try sql.bindArray(SeedVocabulary.cityThresholds, type: "float8[]")
            let tagCount = SeedVocabulary.tags.count
            let zipfTag = "least(\(tagCount), floor(exp(random() * ln(\(tagCount + 1))))::int)"
            try await self.execute(
                sql.query(
                    """
                    WITH posters AS MATERIALIZED (
                        SELECT array_agg(id ORDER BY created_at, n) AS ids, array_agg(created_at ORDER BY created_at, n) AS times
                        FROM seed_accounts WHERE poster
                    ), r AS MATERIALIZED (
                        SELECT g,
                               -- Ascending with g (so the table ends up in time order), denser towards now.
                               \(anchor) - make_interval(secs => 60 + \(self.span - 60) * power(1 - (g - 1 + random()) / \(total), 1.6)) AS created_at,
                               random() AS r_language, random() AS r_length, random() AS r_font, random() AS r_background,
                               random() AS r_location, random() AS r_story, random() AS r_tags,
                               \(zipfTag) AS t1, \(zipfTag) AS t2, \(zipfTag) AS t3,
                               width_bucket(random(), \(cityBuckets)) AS city,
                               (random() + random() + random() - 1.5) / 1.5 AS jitter_x,
                               (random() + random() + random() - 1.5) / 1.5 AS jitter_y
                        FROM generate_series(\(low), \(high)) AS g
                    )
                    INSERT INTO seed_cards
                        (n, id, author_id, parent_id, content, font, background_kind, background_ref, tags, latitude, longitude, created_at, expires_at)
                    SELECT g, gen_random_uuid(),
                           -- Among accounts that exist by then and post; the earlier, the more they post.
                           (SELECT ids FROM posters)[1 + floor(width_bucket(created_at, (SELECT times FROM posters)) * power(random(), 1.8))::int],
                           NULL,
                           \(content),
                           \(SeedVocabulary.font("r_font")),
                           CASE WHEN r_background < 0.02 THEN 'upload' ELSE 'default' END,
                           CASE WHEN r_background < 0.02 THEN gen_random_uuid()::text
                                ELSE \(backgrounds)[1 + floor(\(SeedVocabulary.backgrounds.count) * power((r_background - 0.02) / 0.98, 1.25))::int] END,
                           array_remove(ARRAY[
                               CASE WHEN r_tags >= 0.30 THEN \(tags)[t1] END,
                               CASE WHEN r_tags >= 0.65 AND t2 <> t1 THEN \(tags)[t2] END,
                               CASE WHEN r_tags >= 0.87 AND t3 <> t1 AND t3 <> t2 THEN \(tags)[t3] END], NULL),
                           CASE WHEN r_location < 0.10
                                THEN round(least(89.9, greatest(-89.9, \(latitudes)[city] + jitter_y * \(spreads)[city]))::numeric, 6)::float8 END,
                           CASE WHEN r_location < 0.10
                                THEN round(least(179.9, greatest(-179.9, \(longitudes)[city] + jitter_x * 1.25 * \(spreads)[city]))::numeric, 6)::float8 END,
                           created_at,
                           CASE WHEN r_story < 0.03 THEN created_at + interval '24 hours' END
                    FROM r
                    ORDER BY g
                    """))
            self.progress(.progress(.cards, done: high, total: total))
        }
        return total
    }

    private mutating func generateComments() async throws -> Int {
        let total = self.plan.comments
        let cards = self.plan.cards
        guard total > 0 else { return 0 }
        for (low, high) in self.chunks(1...total) {
            var sql = SeedSQL()
            let anchor = try sql.bind(self.anchor)
            let content = try SeedVocabulary.commentContent(&sql, language: "r_language")
            let tags = try sql.bindArray(SeedVocabulary.tags, type: "text[]")
            let backgrounds = try sql.bindArray(SeedVocabulary.backgrounds, type: "text[]")
            let tagCount = SeedVocabulary.tags.count
            try await self.execute(
                sql.query(
                    """
                    WITH \(self.cardArrays), \(self.accountArrays), r AS MATERIALIZED (
                        SELECT g,
                               -- A power-law popularity rank, scattered over cards of all ages.
                               1 + (floor(\(cards) * power(random(), 3))::bigint * \(self.scatter)) % \(cards) AS pos,
                               random() AS r_delay, random() AS r_language, random() AS r_font, random() AS r_background, random() AS r_tag,
                               least(\(tagCount), floor(exp(random() * ln(\(tagCount + 1))))::int) AS t1
                        FROM generate_series(\(low), \(high)) AS g
                    ), t AS MATERIALIZED (
                        SELECT r.*, (SELECT ids FROM top)[pos] AS parent_id,
                               -- After the parent (within a story's life), mostly soon after it.
                               (SELECT times FROM top)[pos] + (least(\(anchor), (SELECT ends FROM top)[pos]) - (SELECT times FROM top)[pos])
                                   * (0.0005 + 0.9995 * power(r_delay, 4)) AS created_at
                        FROM r
                    )
                    INSERT INTO seed_cards
                        (n, id, author_id, parent_id, content, font, background_kind, background_ref, tags, latitude, longitude, created_at, expires_at)
                    SELECT \(cards + low - 1) + row_number() OVER (ORDER BY created_at), gen_random_uuid(),
                           (SELECT ids FROM people)[1 + floor(width_bucket(created_at, (SELECT times FROM people)) * power(random(), 1.4))::int],
                           parent_id,
                           \(content),
                           \(SeedVocabulary.font("r_font")),
                           'default',
                           \(backgrounds)[1 + floor(r_background * \(SeedVocabulary.backgrounds.count))::int],
                           CASE WHEN r_tag < 0.05 THEN ARRAY[\(tags)[t1]] ELSE '{}'::text[] END,
                           NULL, NULL, created_at, NULL
                    FROM t
                    ORDER BY created_at
                    """))
            self.progress(.progress(.comments, done: high, total: total))
        }
        return total
    }

    private mutating func generateLikes() async throws -> Int {
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
            try await self.execute(self.likesStatement(count: attempt, into: "INSERT INTO seed_likes_raw (card_id, account_id, created_at)"))
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
                self.likesStatement(
                    count: attempt, into: "INSERT INTO seed_likes (card_id, account_id, created_at)", suffix: "ON CONFLICT DO NOTHING RETURNING 1"))
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

    /// Draws `count` likes: a popular card (6% a comment card) and anyone whose account exists by
    /// the time of the like, which falls between the card's creation and now (or the story's end).
    /// With a `suffix` (ON CONFLICT … RETURNING), the statement answers how many rows it added.
    private func likesStatement(count: Int, into insert: String, suffix: String = "") throws -> PostgresQuery {
        let cards = self.plan.cards
        let comments = self.plan.comments
        let onComment = comments > 0 ? "random() < 0.06" : "false"
        var sql = SeedSQL()
        let anchor = try sql.bind(self.anchor)
        let select = """
            SELECT card_id, (SELECT ids FROM people)[1 + floor(width_bucket(created_at, (SELECT times FROM people)) * random())::int],
                   created_at
            FROM l
            """
        return sql.query(
            """
            WITH \(self.cardArrays), \(self.commentArrays), \(self.accountArrays), r AS MATERIALIZED (
                SELECT on_comment,
                       CASE WHEN on_comment THEN 1 + floor(random() * \(max(comments, 1)))::bigint
                            ELSE 1 + (floor(\(cards) * power(random(), 3))::bigint * \(self.scatter)) % \(cards) END AS pos,
                       random() AS r_delay
                FROM (SELECT \(onComment) AS on_comment FROM generate_series(1, \(count)) OFFSET 0) AS g
            ), t AS (
                SELECT CASE WHEN on_comment THEN (SELECT ids FROM replies)[pos] ELSE (SELECT ids FROM top)[pos] END AS card_id,
                       CASE WHEN on_comment THEN (SELECT times FROM replies)[pos] ELSE (SELECT times FROM top)[pos] END AS card_time,
                       CASE WHEN on_comment THEN \(anchor) ELSE least(\(anchor), (SELECT ends FROM top)[pos]) END AS card_end,
                       r_delay
                FROM r
            ), l AS (
                SELECT card_id, card_time + (card_end - card_time) * (0.0005 + 0.9995 * power(r_delay, 3)) AS created_at FROM t
            )\(suffix.isEmpty ? "" : ", inserted AS (")
            \(insert)
            \(select)
            \(suffix.isEmpty ? "" : "\(suffix)\n)\nSELECT count(*) FROM inserted")
            """)
    }

    /// Counters per staged card and author; lookup indexes and statistics for the writes.
    private mutating func tally() async throws -> Int {
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
        try await self.execute("CREATE INDEX ON seed_cards (n)")
        try await self.execute("ANALYZE seed_accounts, seed_cards, seed_likes, seed_counts, seed_author_counts")
        return try await self.count("SELECT count(*) FROM seed_counts")
    }

    // MARK: Writing

    /// Foreign-key checks are per-row triggers: most of the cost of writing likes. When the role
    /// may set `session_replication_role` (a superuser, like the embedded cluster's) and the tables
    /// have no triggers of their own, the writes skip them — as `pg_restore --disable-triggers`
    /// does — and `verifyReferences` checks every reference set-based before the commit. That is
    /// safe: every row referenced is created by this very transaction, invisible to others, so
    /// nobody can delete it meanwhile (what the triggers' row locks are for).
    /// - Returns: whether triggers are off for the rest of the transaction.
    private func disableTriggersIfSafe() async throws -> Bool {
        let userTriggers = try await self.count(
            """
            SELECT count(*) FROM pg_trigger
            WHERE NOT tgisinternal AND tgrelid IN ('accounts'::regclass, 'images'::regclass, 'cards'::regclass, 'likes'::regclass)
            """)
        guard userTriggers == 0 else {
            self.progress(.note("the tables have triggers of their own: writing with per-row foreign-key checks"))
            return false
        }
        try await self.execute("SAVEPOINT seed_replication_role")
        do {
            try await self.execute("SET LOCAL session_replication_role = replica")
            try await self.execute("RELEASE SAVEPOINT seed_replication_role")
            self.progress(.note("writing without per-row foreign-key triggers; references are verified set-based before commit"))
            return true
        } catch let error as PSQLError where error.code == .server {
            try await self.execute("ROLLBACK TO SAVEPOINT seed_replication_role")
            self.progress(.note("not allowed to set session_replication_role: writing with per-row foreign-key checks"))
            return false
        }
    }

    /// What the foreign keys would have checked, for all the written rows at once.
    private func verifyReferences() async throws {
        let missing = try await self.count(
            """
            SELECT (SELECT count(*) FROM seed_cards AS c WHERE NOT EXISTS (SELECT 1 FROM accounts AS a WHERE a.id = c.author_id))
                 + (SELECT count(*) FROM images AS i JOIN seed_cards AS c ON c.background_kind = 'upload' AND c.background_ref = i.id::text
                    WHERE NOT EXISTS (SELECT 1 FROM accounts AS a WHERE a.id = i.owner_id))
                 + (SELECT count(*) FROM seed_likes AS l WHERE NOT EXISTS (SELECT 1 FROM cards AS c WHERE c.id = l.card_id))
                 + (SELECT count(*) FROM seed_likes AS l WHERE NOT EXISTS (SELECT 1 FROM accounts AS a WHERE a.id = l.account_id))
            """)
        if missing > 0 { throw SeedError.brokenReferences(missing) }
    }

    private func stagedCounts() async throws -> (accounts: Int, cards: Int, likes: Int) {
        let row = try await self.connection.query(
            "SELECT (SELECT count(*) FROM seed_accounts), (SELECT count(*) FROM seed_cards), (SELECT count(*) FROM seed_likes)",
            logger: self.logger
        ).collect()[0]
        let (accounts, cards, likes) = try row.decode((Int, Int, Int).self)
        return (accounts, cards, likes)
    }

    private mutating func writeAccounts() async throws -> Int {
        var written = 0
        let total = try await self.count("SELECT count(*) FROM seed_accounts")
        for (low, high) in self.chunks(1...self.plan.accounts) {
            written += try await self.count(
                """
                WITH inserted AS (
                    INSERT INTO accounts (id, key_fingerprint, public_key, nickname, nickname_key, profile_image_kind, profile_image_ref,
                                          bio, card_count, created_at)
                    SELECT s.id, s.key_fingerprint, s.public_key, s.nickname, s.nickname_key, s.profile_image_kind, s.profile_image_ref,
                           s.bio, coalesce(k.cards, 0), s.created_at
                    FROM seed_accounts AS s LEFT JOIN seed_author_counts AS k ON k.id = s.id
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

    private mutating func writeCards() async throws -> Int {
        var sql = SeedSQL()
        let png = try sql.bind(SeedVocabulary.uploadPNG)
        self.summary.images = try await self.count(
            sql.query(
                """
                WITH inserted AS (
                    INSERT INTO images (id, owner_id, content_type, byte_count, sha256, bytes, created_at)
                    SELECT background_ref::uuid, author_id, 'image/png', octet_length(\(png)::bytea), sha256(\(png)::bytea), \(png)::bytea, created_at
                    FROM seed_cards WHERE background_kind = 'upload'
                    ORDER BY n
                    RETURNING 1
                )
                SELECT count(*) FROM inserted
                """))
        let total = self.plan.cards + self.plan.comments
        var written = 0
        for (low, high) in self.chunks(1...max(total, 1)) {
            written += try await self.count(
                """
                WITH inserted AS (
                    INSERT INTO cards (id, author_id, parent_id, content, font, background_kind, background_ref, tags, latitude, longitude,
                                       created_at, expires_at, like_count, comment_count)
                    SELECT c.id, c.author_id, c.parent_id, c.content, c.font, c.background_kind, c.background_ref, c.tags, c.latitude, c.longitude,
                           c.created_at, c.expires_at, coalesce(k.like_count, 0), coalesce(k.comment_count, 0)
                    FROM seed_cards AS c LEFT JOIN seed_counts AS k ON k.id = c.id
                    WHERE c.n BETWEEN \(low) AND \(high)
                    ORDER BY c.n
                    RETURNING 1
                )
                SELECT count(*) FROM inserted
                """)
            self.progress(.progress(.writeCards, done: written, total: total))
        }
        self.summary.cards = try await self.count("SELECT count(*) FROM seed_cards WHERE parent_id IS NULL")
        self.summary.comments = written - self.summary.cards
        return written + self.summary.images
    }

    private mutating func writeLikes() async throws -> Int {
        let total = try await self.count("SELECT count(*) FROM seed_likes")
        let pieces = max(1, (total + self.plan.chunkSize - 1) / self.plan.chunkSize)
        var written = 0
        // Ranges of card ids (random v4 uuids spread evenly), each read in primary-key order.
        for index in 0..<pieces {
            var sql = SeedSQL()
            let low = try sql.bind(Self.uuidBoundary(index, of: pieces))
            let upper = index + 1 < pieces ? "AND card_id < \(try sql.bind(Self.uuidBoundary(index + 1, of: pieces)))" : ""
            written += try await self.count(
                sql.query(
                    """
                    WITH inserted AS (
                        INSERT INTO likes (card_id, account_id, created_at)
                        SELECT card_id, account_id, created_at FROM seed_likes
                        WHERE card_id >= \(low) \(upper)
                        ORDER BY card_id, account_id
                        RETURNING 1
                    )
                    SELECT count(*) FROM inserted
                    """))
            self.progress(.progress(.writeLikes, done: written, total: total))
        }
        self.summary.likes = written
        return written
    }

    /// Exact counters over the whole tables, set-based; touches only rows that disagree.
    private mutating func recountCounters() async throws -> Int {
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
                SELECT a.id, coalesce(c.cards, 0) AS cards
                FROM accounts AS a
                LEFT JOIN (SELECT author_id, count(*)::int AS cards FROM cards WHERE parent_id IS NULL GROUP BY author_id) AS c
                    ON c.author_id = a.id
            ), updated AS (
                UPDATE accounts AS a SET card_count = truth.cards
                FROM truth
                WHERE a.id = truth.id AND a.card_count <> truth.cards
                RETURNING 1
            )
            SELECT count(*) FROM updated
            """)
        self.summary.correctedCounters = cards + accounts
        if cards + accounts > 0 {
            self.progress(.note("recount corrected \(cards) card and \(accounts) account counters"))
        }
        return cards + accounts
    }

    // MARK: Shared SQL

    /// Top-level cards as aligned arrays (position = the popularity scatter's domain). Built
    /// without ORDER BY: one scan feeds all three, and a temporary table (never scanned in
    /// parallel or synchronised) is read in the same order by every statement of the run.
    /// No NULLs (`infinity` for "never expires"): subscripts stay O(1).
    private var cardArrays: String {
        """
        top AS MATERIALIZED (
            SELECT array_agg(id) AS ids, array_agg(created_at) AS times, array_agg(coalesce(expires_at, 'infinity')) AS ends
            FROM seed_cards WHERE parent_id IS NULL
        )
        """
    }

    private var commentArrays: String {
        """
        replies AS MATERIALIZED (
            SELECT array_agg(id) AS ids, array_agg(created_at) AS times FROM seed_cards WHERE parent_id IS NOT NULL
        )
        """
    }

    /// Every staged account, oldest first, for `width_bucket`: who exists at a given time.
    private var accountArrays: String {
        """
        people AS MATERIALIZED (
            SELECT array_agg(id ORDER BY created_at, n) AS ids, array_agg(created_at ORDER BY created_at, n) AS times FROM seed_accounts
        )
        """
    }

    /// `1...total` cut into inclusive ranges of `chunkSize`.
    private func chunks(_ range: ClosedRange<Int>) -> [(Int, Int)] {
        stride(from: range.lowerBound, through: range.upperBound, by: self.plan.chunkSize).map {
            ($0, min($0 + self.plan.chunkSize - 1, range.upperBound))
        }
    }

    /// The uuid at `index / count` of the id space (first 8 bytes), for range chunks.
    static func uuidBoundary(_ index: Int, of count: Int) -> UUID {
        let value = UInt64.max / UInt64(count) * UInt64(index)
        let hex = String(value, radix: 16)
        let padded = String(repeating: "0", count: 16 - hex.count) + hex
        return UUID(uuidString: "\(padded.prefix(8))-\(padded.dropFirst(8).prefix(4))-\(padded.suffix(4))-0000-000000000000")!
    }

    private func execute(_ query: PostgresQuery) async throws {
        _ = try await self.connection.query(query, logger: self.logger).collect()
    }

    private func count(_ query: PostgresQuery) async throws -> Int {
        try await self.connection.query(query, logger: self.logger).collect().first?.decode(Int.self) ?? 0
    }
}

// MARK: - SQL with bound values

/// Statement text whose values are all bound; only numbers we format ourselves are spliced in.
private struct SeedSQL {
    private var bindings = PostgresBindings()

    /// Binds `value`; returns its placeholder (`$n`), usable any number of times.
    mutating func bind(_ value: some PostgresThrowingDynamicTypeEncodable) throws -> String {
        try self.bindings.append(value)
        return "$\(self.bindings.count)"
    }

    /// Binds an array; returns `($n::type)`, ready to subscript.
    mutating func bindArray(_ values: some PostgresThrowingDynamicTypeEncodable, type: String) throws -> String {
        "(\(try self.bind(values))::\(type))"
    }

    func query(_ sql: String) -> PostgresQuery {
        PostgresQuery(unsafeSQL: sql, binds: self.bindings)
    }
}

// MARK: - Nicknames

/// Nickname stems ("고요한 고래", "별", "CalmFox") and the rule that makes them unique:
/// account `i` is `stems[i % count]` followed by `i / count` (nothing when 0). Stems have no
/// digits and distinct keys, so the trailing number and the stem identify `i`: names and their
/// case-folded keys are unique by construction.
private struct SeedNicknames {
    let stems: [String]
    /// `Nickname.key(for:)` of each stem, as the server computes it.
    let keys: [String]

    /// Stems short enough that every name of accounts `offset ..< offset + accounts` fits.
    static func choose(accounts: Int, offset: Int) throws(SeedError) -> SeedNicknames {
        var pool = Self.all
        while true {
            let largest = (offset + accounts - 1) / max(pool.count, 1)
            let room = Nickname.maximumLength - (largest == 0 ? 0 : String(largest).count)
            let fitting = pool.filter { $0.count <= room }
            if fitting.isEmpty { throw .nicknamesExhausted(accounts + offset) }
            if fitting.count == pool.count { break }
            pool = fitting
        }
        return SeedNicknames(stems: pool, keys: pool.map { Nickname.key(for: $0) })
    }

    /// Every candidate stem, valid and with distinct keys, in a fixed mixed order.
    static let all: [String] = {
        let koreanAdjectives = [
            "고요한", "다정한", "푸른", "따뜻한", "조용한", "반짝이는", "느긋한", "용감한", "수줍은", "명랑한", "포근한", "싱그러운",
            "졸린", "씩씩한", "말랑한", "새벽의", "은은한", "해맑은", "단단한", "유쾌한", "차분한", "너그러운", "엉뚱한", "소중한",
        ]
        let koreanNouns = [
            "고래", "여우", "별", "구름", "달", "바람", "나무", "고양이", "강아지", "토끼", "수달", "펭귄", "부엉이", "호랑이",
            "다람쥐", "파도", "노을", "햇살", "새싹", "조약돌", "등대", "나비", "곰", "사슴", "하늘", "바다", "꽃", "숲", "비", "밤",
            "새벽", "별빛", "사과", "감자",
        ]
        let englishAdjectives = ["Calm", "Kind", "Blue", "Warm", "Shy", "Cozy", "Bold", "Mild", "Wise", "Soft", "Glad", "Keen", "Fair", "Cool"]
        let englishNouns = ["Fox", "Owl", "Cat", "Elk", "Bee", "Yak", "Emu", "Jay", "Sun", "Sky", "Oak", "Fig", "Koi", "Ray"]
        var candidates = koreanNouns + englishNouns + ["moon", "sora", "haru", "luna", "mint", "coco", "dodo", "nabi", "bomi"]
        for adjective in koreanAdjectives {
            for noun in koreanNouns {
                candidates.append(adjective + " " + noun)
                candidates.append(adjective + noun)
            }
        }
        for adjective in englishAdjectives {
            for noun in englishNouns {
                candidates.append(adjective + noun)
                candidates.append(adjective.lowercased() + "." + noun.lowercased())
                candidates.append(adjective.lowercased() + "_" + noun.lowercased())
            }
        }
        var keys = Set<String>()
        let valid = candidates.filter { stem in
            guard case .success(let nickname) = Nickname.check(stem), nickname.value == stem,
                !stem.contains(where: \.isNumber), keys.insert(nickname.key).inserted
            else { return false }
            return true
        }
        // A fixed scramble (FNV-1a): consecutive accounts get unrelated names, the same on every run.
        return valid.sorted { Self.fnv($0) < Self.fnv($1) }
    }()

    private static func fnv(_ text: String) -> UInt64 {
        text.utf8.reduce(14_695_981_039_346_656_037 as UInt64) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
    }
}

// MARK: - Words, tags, places

private enum SeedVocabulary {
    static let backgrounds = DefaultBackground.all.map(\.name)

    static let bios = [
        "커피 없인 못 살아요", "그냥 지나가는 사람", "오늘도 무사히", "글 쓰는 걸 좋아해요", "고양이 두 마리와 살아요", "서울 사는 직장인",
        "새벽 감성 충전 중", "여행 가고 싶다", "Hello from Seoul", "Coffee, books, rain.", "just vibing", "매일 조금씩 기록하기",
        "말보다 글이 편한 사람", "Night owl 🦉", "부산 바다 좋아함", "취준생 화이팅", "Be kind.", "음악은 늘 플레이리스트 셔플",
    ]

    // Korean sentences: [time] subject predicate, or a standalone line.
    static let koreanTimes = [
        "오늘", "요즘", "문득", "새벽에", "퇴근길에", "출근길에", "점심에", "주말에", "어제", "방금", "오랜만에", "비 오는 날",
        "밤늦게", "아침부터", "오늘따라", "가끔", "그날", "요새", "이번 주는", "한강에서",
    ]
    static let koreanSubjects = [
        "하늘이", "바다가", "커피가", "바람이", "노을이", "고양이가", "강아지가", "음악이", "친구가", "엄마가", "도시가", "창밖 풍경이",
        "이 노래가", "빗소리가", "달이", "골목길이", "책 한 권이", "밥 한 끼가", "산책이", "지하철이", "공기가", "마음이", "햇살이",
        "꽃이", "첫눈이", "편지가", "동생이", "하루가", "일이", "공부가",
    ]
    static let koreanPredicates = [
        "유난히 예뻤다.", "생각보다 따뜻했다.", "괜히 위로가 됐다.", "너무 좋았어요.", "오래 기억에 남을 것 같다.", "조금 쓸쓸했다.",
        "마음을 편하게 해줬다.", "참 고마웠다.", "왠지 낯설었다.", "자꾸 생각난다.", "나를 웃게 했다 ㅎㅎ", "그냥 그랬다.",
        "눈물 날 만큼 좋았다 ㅠㅠ", "한참을 바라봤다.", "특별하게 느껴졌다.", "평소랑 달랐다.", "기분을 바꿔줬다!", "정말 최고였다.",
        "사진으로는 다 못 담겠다.", "유독 힘들게 느껴졌다.", "괜찮다고 말해줬다.", "생각보다 별로였다 ㅋㅋ", "아직도 잊히지 않는다.",
        "오늘 하루를 살렸다.",
    ]
    static let koreanLines = [
        "다들 좋은 하루 보내세요!", "내일은 더 나아지겠지.", "오늘도 수고했어요, 모두.", "힘내자, 우리 조금만 더.", "잠이 안 오는 밤이다.",
        "누가 내 얘기 좀 들어줘.", "이런 날도 있는 거지 뭐.", "행복은 가까이에 있었다.", "벌써 월요일이라니 ㅠㅠ", "배고프다… 뭐 먹지?",
        "그래도 괜찮아, 진짜로.", "아무 말이나 하고 싶은 밤.", "오늘의 기분은 맑음.", "집에 가고 싶다 ㅋㅋㅋ", "다음엔 꼭 같이 가자.",
    ]
    static let koreanReplies = [
        "완전 공감해요!", "저도 그래요 ㅠㅠ", "힘내세요!", "와 진짜 예쁘다", "ㅋㅋㅋㅋ 너무 웃겨요", "좋은 글 고마워요", "오늘도 수고 많았어요",
        "저도 거기 가봤어요!", "무슨 노래예요?", "응원할게요 :)", "사진 너무 좋네요", "마음이 따뜻해지네요", "맞아요 정말", "토닥토닥",
        "저랑 똑같으시네요", "부럽다…", "다음엔 같이 가요!", "이거 완전 제 얘기", "괜찮아요, 잘하고 있어요", "ㅎㅎ 귀엽다",
    ]

    // English sentences: [time] subject predicate, or a standalone line.
    static let englishTimes = [
        "Today", "Lately", "This morning", "Tonight", "After work", "On the way home", "Somehow", "Last night", "Again", "For once",
        "At lunch", "This weekend",
    ]
    static let englishSubjects = [
        "the sky", "the sea", "my coffee", "the wind", "the sunset", "my cat", "the dog next door", "this song", "an old friend",
        "the city", "the rain", "the moon", "the subway", "my mom", "the air", "a stranger", "this book", "the street",
    ]
    static let englishCapitalisedSubjects = englishSubjects.map { $0.prefix(1).uppercased() + $0.dropFirst() }
    static let englishPredicates = [
        "looked unreal.", "felt warmer than I expected.", "made me smile.", "was exactly what I needed.", "felt a little lonely.",
        "reminded me of home.", "was just okay.", "kept me going.", "said it would be fine.", "felt different somehow.",
        "was the best part of the day!", "made everything quieter.", "tasted like summer.", "stayed with me all day.",
    ]
    static let englishLines = [
        "Have a good day, everyone!", "Tomorrow will be better.", "Can't sleep again.", "Who else is still awake?", "Small things matter.",
        "Monday already? Really?", "I miss the ocean.", "Be kind to yourself today.", "Just needed to say this somewhere.",
    ]
    static let englishReplies = [
        "Same here!", "This made my day.", "Love this!", "Stay strong.", "So true.", "Where is this?", "Beautiful.", "Sending hugs.",
        "I needed this today.", "Haha, exactly.", "You've got this!", "Same, honestly.",
    ]

    /// Most sentences a card may have in each language so that it stays within 200 characters.
    static func sentenceLimit(longest: Int) -> Int { min(4, (200 + 1) / (longest + 1)) }

    /// A card's text: 72% Korean, 1–4 sentences (10–200 characters).
    static func cardContent(_ sql: inout SeedSQL, language: String, length: String) throws -> String {
        let korean = try self.koreanSentence(&sql)
        let english = try self.englishSentence(&sql)
        let koreanLongest = self.koreanTimes.map(\.count).max()! + 1 + self.koreanSubjects.map(\.count).max()! + 1
            + self.koreanPredicates.map(\.count).max()!
        let englishLongest = max(
            self.englishTimes.map(\.count).max()! + 1 + self.englishSubjects.map(\.count).max()!,
            self.englishCapitalisedSubjects.map(\.count).max()!) + 1 + self.englishPredicates.map(\.count).max()!
        func paragraph(_ sentence: String, limit: Int) -> String {
            // Sentence k is there when `length` passed its threshold: 35% one, 35% two, 20% three, 10% four.
            let thresholds = [0.35, 0.70, 0.90].prefix(limit - 1)
            return ([sentence] + thresholds.map { "CASE WHEN \(length) >= \($0) THEN ' ' || \(sentence) ELSE '' END" }).joined(separator: " || ")
        }
        return """
            CASE WHEN \(language) < 0.72 THEN \(paragraph(korean, limit: self.sentenceLimit(longest: max(koreanLongest, self.koreanLines.map(\.count).max()!))))
                 ELSE \(paragraph(english, limit: self.sentenceLimit(longest: max(englishLongest, self.englishLines.map(\.count).max()!)))) END
            """
    }

    /// A comment card's text: a reply, sometimes followed by a sentence.
    static func commentContent(_ sql: inout SeedSQL, language: String) throws -> String {
        let korean = try self.koreanSentence(&sql)
        let english = try self.englishSentence(&sql)
        let koreanReplies = try sql.bindArray(self.koreanReplies, type: "text[]")
        let englishReplies = try sql.bindArray(self.englishReplies, type: "text[]")
        return """
            CASE WHEN \(language) < 0.72
                 THEN \(self.pick(koreanReplies, self.koreanReplies.count)) || CASE WHEN random() < 0.35 THEN ' ' || \(korean) ELSE '' END
                 ELSE \(self.pick(englishReplies, self.englishReplies.count)) || CASE WHEN random() < 0.35 THEN ' ' || \(english) ELSE '' END END
            """
    }

    private static func koreanSentence(_ sql: inout SeedSQL) throws -> String {
        let times = try sql.bindArray(self.koreanTimes, type: "text[]")
        let subjects = try sql.bindArray(self.koreanSubjects, type: "text[]")
        let predicates = try sql.bindArray(self.koreanPredicates, type: "text[]")
        let lines = try sql.bindArray(self.koreanLines, type: "text[]")
        return """
            (CASE WHEN random() < 0.2 THEN \(self.pick(lines, self.koreanLines.count))
                  ELSE CASE WHEN random() < 0.65 THEN \(self.pick(times, self.koreanTimes.count)) || ' ' ELSE '' END
                       || \(self.pick(subjects, self.koreanSubjects.count)) || ' ' || \(self.pick(predicates, self.koreanPredicates.count)) END)
            """
    }

    private static func englishSentence(_ sql: inout SeedSQL) throws -> String {
        let times = try sql.bindArray(self.englishTimes, type: "text[]")
        let subjects = try sql.bindArray(self.englishSubjects, type: "text[]")
        let capitalised = try sql.bindArray(self.englishCapitalisedSubjects, type: "text[]")
        let predicates = try sql.bindArray(self.englishPredicates, type: "text[]")
        let lines = try sql.bindArray(self.englishLines, type: "text[]")
        return """
            (CASE WHEN random() < 0.2 THEN \(self.pick(lines, self.englishLines.count))
                  ELSE CASE WHEN random() < 0.5 THEN \(self.pick(times, self.englishTimes.count)) || ' ' || \(self.pick(subjects, self.englishSubjects.count))
                            ELSE \(self.pick(capitalised, self.englishCapitalisedSubjects.count)) END
                       || ' ' || \(self.pick(predicates, self.englishPredicates.count)) END)
            """
    }

    /// A uniformly random element of a bound array of `count` elements.
    static func pick(_ array: String, _ count: Int) -> String {
        "\(array)[1 + floor(random() * \(count))::int]"
    }

    /// 55% default, 20% rounded, 15% handwriting, 10% serif.
    static func font(_ random: String) -> String {
        "CASE WHEN \(random) < 0.55 THEN 'default' WHEN \(random) < 0.75 THEN 'rounded' WHEN \(random) < 0.90 THEN 'handwriting' ELSE 'serif' END"
    }

    /// ~2,000 tag names (letters, digits and `_`, at most 15 characters), most popular first:
    /// picked with a Zipf-like law, the head is common words and the tail is long.
    static let tags: [String] = {
        let korean = [
            "일상", "하늘", "감성", "고양이", "커피", "여행", "바다", "맛집", "음악", "퇴근", "새벽", "사랑", "위로", "산책", "강아지", "노을",
            "카페", "주말", "공부", "운동", "책", "영화", "비", "눈", "봄", "여름", "가을", "겨울", "꽃", "달", "별", "친구", "가족", "연애",
            "이별", "고민", "회사", "학교", "시험", "취업", "다이어트", "요리", "드라마", "게임", "사진", "그림", "글귀", "독서", "혼밥",
            "혼술", "야경", "제주", "서울", "부산", "한강", "출근", "월요일", "불금", "잠", "행복", "우울", "힐링", "추억", "기록", "오늘",
            "하루", "마음", "빵", "라면", "치킨", "떡볶이", "편의점", "지하철", "버스", "등산", "캠핑", "바다여행", "전시", "공연", "덕질",
        ]
        let english = [
            "daily", "sky", "coffee", "travel", "sea", "food", "music", "love", "cat", "dog", "sunset", "cafe", "weekend", "study", "workout",
            "books", "movie", "rain", "snow", "spring", "summer", "autumn", "winter", "flowers", "moon", "stars", "friends", "family", "photo",
            "art", "quotes", "seoul", "busan", "jeju", "night", "mood", "healing", "memories", "life", "selfcare", "mondays", "latenight",
            "ootd", "kpop", "film", "poetry", "city", "nature",
        ]
        // Head: two Korean words for each English one.
        var head: [String] = []
        var koreanWords = korean[...]
        var englishWords = english[...]
        while !koreanWords.isEmpty || !englishWords.isEmpty {
            head.append(contentsOf: koreanWords.prefix(2))
            koreanWords = koreanWords.dropFirst(2)
            head.append(contentsOf: englishWords.prefix(1))
            englishWords = englishWords.dropFirst(1)
        }
        var result = head
        // Middle: compounds ("고양이스타그램", "coffee_lover").
        for suffix in ["스타그램", "일기", "기록", "사진", "모음", "생각", "타임", "러버"] {
            result += korean.map { $0 + suffix }
        }
        for suffix in ["_daily", "_lover", "_time", "_gram", "_vibes", "_diary"] {
            result += english.map { $0 + suffix }
        }
        // Tail: numbered names ("고양이_1234").
        var number = 1_000
        var index = 0
        let words = korean + english
        while result.count < 2_000 {
            number = (number * 7_919 + 13) % 9_000 + 1_000
            result.append("\(words[index % words.count])_\(number)")
            index += 1
        }
        var seen = Set<String>()
        return result.filter { tag in
            tag.count <= 15 && tag.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && seen.insert(tag).inserted
        }
    }()

    struct City {
        let name: String
        let latitude: Double
        let longitude: Double
        let weight: Double
        /// Degrees of jitter around the centre.
        let spread: Double
    }

    static let cities: [City] = [
        City(name: "Seoul", latitude: 37.5665, longitude: 126.9780, weight: 0.42, spread: 0.10),
        City(name: "Busan", latitude: 35.1796, longitude: 129.0756, weight: 0.12, spread: 0.07),
        City(name: "Incheon", latitude: 37.4563, longitude: 126.7052, weight: 0.07, spread: 0.06),
        City(name: "Daegu", latitude: 35.8714, longitude: 128.6014, weight: 0.06, spread: 0.06),
        City(name: "Daejeon", latitude: 36.3504, longitude: 127.3845, weight: 0.05, spread: 0.05),
        City(name: "Gwangju", latitude: 35.1595, longitude: 126.8526, weight: 0.05, spread: 0.05),
        City(name: "Suwon", latitude: 37.2636, longitude: 127.0286, weight: 0.05, spread: 0.04),
        City(name: "Jeju", latitude: 33.4996, longitude: 126.5312, weight: 0.05, spread: 0.08),
        City(name: "Ulsan", latitude: 35.5384, longitude: 129.3114, weight: 0.03, spread: 0.04),
        City(name: "Jeonju", latitude: 35.8242, longitude: 127.1480, weight: 0.02, spread: 0.03),
        City(name: "Gangneung", latitude: 37.7519, longitude: 128.8761, weight: 0.02, spread: 0.03),
        City(name: "Tokyo", latitude: 35.6762, longitude: 139.6503, weight: 0.02, spread: 0.10),
        City(name: "Osaka", latitude: 34.6937, longitude: 135.5023, weight: 0.01, spread: 0.06),
        City(name: "New York", latitude: 40.7128, longitude: -74.0060, weight: 0.01, spread: 0.08),
        City(name: "Paris", latitude: 48.8566, longitude: 2.3522, weight: 0.01, spread: 0.05),
        City(name: "London", latitude: 51.5072, longitude: -0.1276, weight: 0.01, spread: 0.06),
    ]

    /// Lower bounds of each city's share of [0, 1): `width_bucket(random(), …)` picks a city by weight.
    static let cityThresholds: [Double] = {
        let total = cities.reduce(0) { $0 + $1.weight }
        var running = 0.0
        return cities.map { city in
            defer { running += city.weight / total }
            return running
        }
    }()

    /// DER SubjectPublicKeyInfo header of an uncompressed P-256 key, up to and including the 0x04.
    static let p256PublicKeyPrefix = Data([
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D,
        0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04,
    ])

    /// A valid 1×1 PNG (one soft blue pixel): the bytes of every seeded upload.
    static let uploadPNG = Data([
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01,
        0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xDE, 0x00, 0x00, 0x00, 0x0C, 0x49, 0x44, 0x41,
        0x54, 0x78, 0xDA, 0x63, 0xD8, 0x72, 0xE5, 0x03, 0x00, 0x04, 0xB8, 0x02, 0x79, 0x76, 0xBC, 0x03, 0x7E, 0x00, 0x00, 0x00,
        0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ])
}
