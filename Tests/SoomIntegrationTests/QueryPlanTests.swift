import Foundation
import Logging
import PostgresNIO
import SoomSeed
import Testing

@testable import SoomData

@Suite("Query plans on a seeded database")
struct QueryPlanTests {
    /// The feeds' prepared statements, whose generic plan serves every request after the fifth.
    static let feeds: [(String, String)] =
        [
            ("latest", LatestFeed.Page.sql),
            ("tag feed", TagFeed.Page.sql),
            // Which cards a page holds, as read for the feed page cache.
            ("latest, positions", LatestFeed.Positions.sql),
            ("tag feed, positions", TagFeed.Positions.sql),
            // What completes a cached shared page for its viewer: probes of `likes` by primary key.
            ("a viewer's marks on a page", CardStatements.ViewerMarks.sql),
            // A viewer's book of likes: their likes through `likes_account_idx`, each card by its key.
            // (Not among the growing database's hot statements: there ten accounts hold every like.)
            ("a viewer's book of likes", CardStatements.LikeBook.sql),
        ]
        + NearbyStatements.indexedLengths.flatMap { length in
            // The nearby feed: one index per prefix length, read newest first per prefix; only the
            // candidates (a page per prefix at most) are sorted.
            [("nearby, prefixes of \(length)", NearbyStatements.texts[length]!)]
        }

    @Test("with no blocks yet (a new site), a feed page reads its index in order and probes parents: no scan or sort of all cards")
    func feedsWithoutBlocks() async throws {
        try await withFreshDatabase { configuration in
            let database = TestDatabase(configuration: configuration)
            let tag = try await Self.seed(configuration, accounts: 300, cards: 3000, comments: 300, likes: 3000)
            #expect(try await database.scalar("SELECT count(*)::int FROM blocks") == 0)

            let session = try await PlanSession(configuration, tag: tag, statements: Self.feeds)
            do {
                for (name, text) in try await session.explain() {
                    #expect(name.hasPrefix("nearby") || !text.contains("Sort  (cost"), "\(name) sorts:\n\(text)")
                    // Neither the feed's rows (`c`) nor the parents' check (`p`) may read the whole table.
                    #expect(!text.contains("Seq Scan on cards"), "\(name) reads all cards:\n\(text)")
                    #expect(!text.contains("Seq Scan on likes"), "\(name) reads all likes:\n\(text)")
                    #expect(text.contains("Index"), "\(name):\n\(text)")
                    if name.hasPrefix("nearby") {
                        // Each prefix through its index: read in order (at 1M cards, an index-only scan),
                        // or, as here where a prefix holds a dozen cards, all of them at once.
                        #expect(text.contains("cards_nearby_p\(name.split(separator: " ").last ?? "")_idx"), "\(name):\n\(text)")
                    }
                }
                try await session.close()
            } catch {
                try? await session.close()
                throw error
            }
        }
    }

    /// Fills the database with `soom seed`'s generator (no favourite tags), which ends with
    /// `ANALYZE`; returns the most used tag's key.
    static func seed(_ configuration: DatabaseConfiguration, accounts: Int, cards: Int, comments: Int, likes: Int) async throws -> String {
        var logger = Logger(label: "soom-test-plans")
        logger.logLevel = .warning
        var plan = Seeder.Plan()
        plan.accounts = accounts
        plan.cards = cards
        plan.comments = comments
        plan.likes = likes
        plan.favorites = 0
        _ = try await Seeder(configuration: configuration, logger: logger).run(plan)
        return try await TestDatabase(configuration: configuration).rows("SELECT key FROM tags ORDER BY usage_count DESC LIMIT 1")[0]
            .decode(String.self)
    }

    /// The first pages of the latest and tag feeds, for the reader and as kept for everyone.
    static let firstPages = Self.feeds.filter { $0.0 == "latest" || $0.0 == "tag feed" }

    /// Most readers never block, are never blocked and never report: for them a page must not probe
    /// `blocks` and `reports` per card (`CardRow.hasBlocksOrReports`), which on a growing
    /// deployment's empty, never analysed tables cost more than half of a latest page's buffers.
    /// Once the reader blocks someone, every card is checked again. Without the guard the first
    /// half fails: the probes run once per card.
    @Test("a reader without blocks or reports pays no per-card block probe; one with a block pays it on every card")
    func blockProbesOnlyForReadersWithBlocks() async throws {
        try await withFreshDatabase { configuration in
            let database = TestDatabase(configuration: configuration)
            let tag = try await Self.seed(configuration, accounts: 100, cards: 1000, comments: 0, likes: 500)
            #expect(try await database.scalar("SELECT count(*)::int FROM blocks") == 0)
            #expect(try await database.scalar("SELECT count(*)::int FROM reports") == 0)
            let accounts = try await database.rows("SELECT id FROM accounts ORDER BY id LIMIT 2").map { try $0.decode(UUID.self) }
            let reader = accounts[0]

            // The line of a plan that probes `blocks_pkey` for the cards.
            func blockProbe(_ name: String, _ text: String) throws -> Substring {
                try #require(text.split(separator: "\n").first { $0.contains("on blocks") && $0.contains("blocks_pkey") }, "\(name):\n\(text)")
            }
            let session = try await PlanSession(configuration, tag: tag, statements: Self.firstPages)
            do {
                let plans = try await session.explain(analyzingAs: reader)
                #expect(plans.count == 2)
                for (name, text) in plans {
                    #expect(text.contains("rows=20 loops=1") || text.contains("rows=21 loops=1"), "\(name) reads no page:\n\(text)")
                    let probe = try blockProbe(name, text)
                    #expect(probe.contains("never executed"), "\(name) probes blocks per card for a reader without blocks:\n\(text)")
                }

                try await database.execute("INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES (\(reader), \(accounts[1]), now())")
                for (name, text) in try await session.explain(analyzingAs: reader) {
                    let probe = try blockProbe(name, text)
                    let loops = probe.split(separator: "loops=").last.flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
                    #expect(loops >= 21, "\(name) skips a blocking reader's probes:\n\(text)")
                }
                try await session.close()
            } catch {
                try? await session.close()
                throw error
            }
        }
    }
}

@Suite("Query plans on a new, growing database")
struct GrowingQueryPlanTests {
    /// Every hot read that is a prepared statement, with the index each must read its rows through.
    static let hot: [(name: String, sql: String, index: String)] = [
        ("latest", LatestFeed.Page.sql, "cards_latest_idx"),
        ("latest, positions", LatestFeed.Positions.sql, "cards_latest_idx"),
        ("tag feed", TagFeed.Page.sql, "card_tags"),
        ("tag feed, positions", TagFeed.Positions.sql, "card_tags"),
        ("following", FollowingStatements.Page.sql, "cards_author_feed_idx"),
        ("following, inbox", FollowingStatements.Page.sql, "following_inbox_pkey"),
        ("following, positions", FollowingStatements.Page.positionsSQL, "cards_author_feed_idx"),
        ("following, inbox alone", FollowingStatements.Inbox.sql, "following_inbox_pkey"),
        ("following, positions, inbox", FollowingStatements.Page.positionsSQL, "following_inbox_pkey"),
        ("an author's cards, positions", AuthorFeed.Positions.sql, "cards_author_feed_idx"),
        ("my comment cards", CommentsByFeed.Page.sql, "cards_author_comments_idx"),
        ("card detail", CardStatements.Detail.sql, "cards_pkey"),
        ("kept cards by ID", CardStatements.Shared.sql, "cards_pkey"),
        ("a viewer's marks on a page", CardStatements.ViewerMarks.sql, "likes_pkey"),
        ("ranked tags", TagStatements.Ranked.sql, "tags"),
        ("tag search", TagStatements.Search.sql, "tags"),
        ("a session's account", SessionAccountStatement.sql, "sessions_pkey"),
        // Not a request's, but every 15 s on every deployment: it must not read the week's cards.
        ("popular ranking, a round from the candidates", PopularRankingStatements.fromCandidates(fetch: 1).sql, "cards_latest_idx"),
    ]

    /// The tables that grew in the burst: once analysed, none of them may be read whole by a hot statement.
    static let grown = ["cards", "likes", "accounts", "card_tags", "tags", "following_inbox"]

    /// On the empty tables of a new deployment each statement's plan reads through its index (it
    /// may scan a table that is empty); those plans last until the first rows are analysed, within
    /// a round of `PlannerStatistics` (see `PlannerStatisticsTests`), and the plans made then read
    /// no grown table whole.
    @Test("hot statements planned on empty tables and again after a burst read through their indexes, never a grown table whole")
    func tinyAndGrown() async throws {
        try await withFreshDatabase { configuration in
            let database = TestDatabase(configuration: configuration)
            // The plans the server's sessions make first: on empty, never analysed tables.
            let session = try await PlanSession(configuration, tag: "grow", statements: Self.hot.map { ($0.name, $0.sql) })
            do {
                Self.check(try await session.explain(), when: "empty")

                // Then a burst, with nobody running ANALYZE: 5,000 accounts, 20,000 cards, 2,000 tags, likes.
                try await database.insertBurst(accounts: 5_000, cards: 20_000, tags: 2_000)
                try await database.execute(
                    """
                    INSERT INTO likes (card_id, account_id, created_at)
                    SELECT c.id, a.id, now() FROM (SELECT id FROM cards ORDER BY created_at DESC LIMIT 2000) c
                    CROSS JOIN (SELECT id FROM accounts LIMIT 10) a
                    """)
                // Ten readers' following inboxes, 2,000 cards each.
                try await database.execute(
                    """
                    INSERT INTO following_inbox (reader_id, created_at, card_id, author_id)
                    SELECT a.id, c.created_at, c.id, c.author_id FROM (SELECT id, created_at, author_id FROM cards ORDER BY created_at DESC LIMIT 2000) c
                    CROSS JOIN (SELECT id FROM accounts LIMIT 10) a
                    """)
                // The server's job analyses what grew; PostgreSQL then plans the session's statements again.
                try await database.withDatabase { pool in _ = try await PlannerStatistics(database: pool).refresh() }
                Self.check(try await session.explain(), when: "grown")
                try await session.close()
            } catch {
                try? await session.close()
                throw error
            }
        }
    }

    /// The tag feed's statements (of `QueryPlanTests.feeds`), whose generic plan serves every tag alike.
    static let tagFeeds = QueryPlanTests.feeds.filter { $0.0.hasPrefix("tag feed") }

    /// Tags are skewed: the tag people read most is on a few percent of all cards, the average tag
    /// on a handful. A generic plan costed for the average tag reads all of the most used one with a
    /// bitmap scan, joins every card of it and sorts them: on the growing benchmark's 10k stage,
    /// copied and analysed, its feed made 192 pages/s (p99 228 ms) with the page cache off. Migration
    /// 0017 has PostgreSQL cost `tag_key = $2` as the most used tag, so a page reads
    /// `card_tags_feed_idx` in order and stops at the page. Without it, this fails at 2,000 cards
    /// (later page) and at 10,000 (first page).
    @Test(
        "the tag feed reads even the most used tag in index order and stops at the page, whatever the number of tags",
        arguments: [(cards: 2_000, tags: 400), (cards: 10_000, tags: 5_000), (cards: 20_000, tags: 10_000)])
    func hotTag(size: (cards: Int, tags: Int)) async throws {
        try await withFreshDatabase { configuration in
            let database = TestDatabase(configuration: configuration)
            let session = try await PlanSession(configuration, tag: "hot", statements: Self.tagFeeds)
            do {
                // 20 % of the cards carry the tag `hot`; the other tags hold 5 or 2 cards each.
                try await database.insertBurst(accounts: 200, cards: size.cards, tags: size.tags, hotPercent: 20)
                try await database.withDatabase { pool in _ = try await PlannerStatistics(database: pool).refresh() }
                for (name, text) in try await session.explain() {
                    #expect(text.contains("card_tags_feed_idx"), "\(size.cards) cards: \(name) does not read card_tags_feed_idx:\n\(text)")
                    #expect(!text.contains("Sort"), "\(size.cards) cards: \(name) sorts the tag's cards:\n\(text)")
                    #expect(!text.contains("Bitmap"), "\(size.cards) cards: \(name) reads the whole tag:\n\(text)")
                }
                try await session.close()
            } catch {
                try? await session.close()
                throw error
            }
        }
    }

    static func check(_ plans: [(name: String, text: String)], when: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for ((name, text), statement) in zip(plans, Self.hot) {
            for table in when == "grown" ? Self.grown : [] {
                #expect(!text.contains("Seq Scan on \(table) "), "\(when): \(name) reads all of \(table):\n\(text)", sourceLocation: sourceLocation)
            }
            #expect(text.contains(statement.index), "\(when): \(name) does not use \(statement.index):\n\(text)", sourceLocation: sourceLocation)
        }
    }
}

/// One session set up as the server's pool is, holding `statements` prepared (named, as the
/// server's are); `explain()` gives each one's generic plan, with stand-in arguments of the types
/// PostgreSQL inferred.
struct PlanSession {
    let connection: PostgresConnection
    let logger: Logger
    let statements: [(name: String, sql: String)]
    let tag: String

    init(_ configuration: DatabaseConfiguration, tag: String, statements: [(String, String)]) async throws {
        var logger = Logger(label: "soom-test-plans")
        logger.logLevel = .warning
        self.logger = logger
        self.tag = tag
        self.statements = statements.map { (name: $0.0, sql: $0.1) }
        self.connection = try await TestPostgres.connect(configuration, logger: logger)
        for setting in ["SET jit = off", "SET enable_memoize = off", "SET plan_cache_mode = force_generic_plan"] {
            try await self.connection.query(PostgresQuery(unsafeSQL: setting), logger: logger)
        }
        for (index, statement) in self.statements.enumerated() {
            try await self.connection.query(PostgresQuery(unsafeSQL: "PREPARE hot\(index) AS \(statement.sql)"), logger: logger)
        }
    }

    /// Each statement's generic plan; with `viewer`, executed (`EXPLAIN ANALYZE`) with that
    /// account as the first `uuid` argument (`$1`, the viewer of every feed statement).
    func explain(analyzingAs viewer: UUID? = nil) async throws -> [(name: String, text: String)] {
        var plans: [(name: String, text: String)] = []
        for (index, statement) in self.statements.enumerated() {
            let types = try await self.connection.query(
                "SELECT parameter_types::text[] FROM pg_prepared_statements WHERE name = \("hot\(index)")", logger: self.logger
            ).collect()[0].decode([String].self)
            let arguments = types.enumerated().map { position, type in
                switch type {
                case "uuid" where position == 0: "'\(viewer ?? UUID())'"
                case "uuid": "'\(UUID())'"
                case "uuid[]": "ARRAY['\(UUID())', '\(UUID())']::uuid[]"
                case "text": "'\(self.tag)'"
                case "text[]": "ARRAY['wydm9', 'wydm8']"
                case "bytea": "'\\x00'::bytea"
                case "double precision": "37.5"
                // A cursor's microseconds (followed by its card ID): above every card, as on a first page.
                case "bigint" where types.indices.contains(position + 1) && types[position + 1] == "uuid": "9000000000000000"
                case "bigint", "integer": "21"
                default: "NULL"
                }
            }
            let lines = try await self.connection.query(
                PostgresQuery(
                    unsafeSQL:
                        "EXPLAIN \(viewer == nil ? "" : "(ANALYZE, COSTS OFF, TIMING OFF) ")EXECUTE hot\(index)(\(arguments.joined(separator: ", ")))"
                ),
                logger: self.logger
            ).collect().map { try $0.decode(String.self) }
            plans.append((statement.name, lines.joined(separator: "\n")))
        }
        return plans
    }

    func close() async throws {
        try await self.connection.close()
    }
}
