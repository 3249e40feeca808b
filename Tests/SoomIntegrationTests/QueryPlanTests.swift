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
            ("latest, first page", CardStatements.LatestFirst.sql),
            ("latest, later page", CardStatements.LatestAfter.sql),
            ("tag feed, first page", TagStatements.FeedFirst.sql),
            ("tag feed, later page", TagStatements.FeedAfter.sql),
            // The same four as read for the feed page cache: blocks as a column rather than a filter.
            ("latest, first page, shared", CardStatements.LatestFirst.sharedSQL),
            ("latest, later page, shared", CardStatements.LatestAfter.sharedSQL),
            ("tag feed, first page, shared", TagStatements.FeedFirst.sharedSQL),
            ("tag feed, later page, shared", TagStatements.FeedAfter.sharedSQL),
            // What completes a cached shared page for its viewer: probes of `likes` by primary key.
            ("a viewer's marks on a page", CardStatements.ViewerMarks.sql),
        ]
        + NearbyStatements.indexedLengths.flatMap { length in
            // The nearby feed: one index per prefix length, read newest first per prefix; only the
            // candidates (a page per prefix at most) are sorted.
            [
                ("nearby, prefixes of \(length), first page", NearbyStatements.texts[length]!.first),
                ("nearby, prefixes of \(length), later page", NearbyStatements.texts[length]!.after),
            ]
        }

    @Test("with no blocks yet (a new site), a feed page reads its index in order and probes parents: no scan or sort of all cards")
    func feedsWithoutBlocks() async throws {
        try await withFreshDatabase { configuration in
            let database = TestDatabase(configuration: configuration)
            var logger = Logger(label: "soom-test-plans")
            logger.logLevel = .warning
            var plan = Seeder.Plan()
            plan.accounts = 300
            plan.cards = 3000
            plan.comments = 300
            plan.likes = 3000
            plan.favorites = 0
            _ = try await Seeder(configuration: configuration, logger: logger).run(plan)  // ends with ANALYZE
            #expect(try await database.scalar("SELECT count(*)::int FROM blocks") == 0)
            let tag = try await database.rows("SELECT key FROM tags ORDER BY usage_count DESC LIMIT 1")[0].decode(String.self)

            // One session, set up as the server's pool is; each statement's generic plan, explained
            // with stand-in arguments of the types PostgreSQL inferred.
            let connection = try await TestPostgres.connect(configuration, logger: logger)
            do {
                for setting in ["SET jit = off", "SET enable_memoize = off", "SET plan_cache_mode = force_generic_plan"] {
                    try await connection.query(PostgresQuery(unsafeSQL: setting), logger: logger)
                }
                for (index, (name, sql)) in Self.feeds.enumerated() {
                    try await connection.query(PostgresQuery(unsafeSQL: "PREPARE feed\(index) AS \(sql)"), logger: logger)
                    let types = try await connection.query(
                        "SELECT parameter_types::text[] FROM pg_prepared_statements WHERE name = \("feed\(index)")", logger: logger
                    ).collect()[0].decode([String].self)
                    let arguments = types.map { type in
                        switch type {
                        case "uuid": "'\(UUID())'"
                        case "uuid[]": "ARRAY['\(UUID())', '\(UUID())']::uuid[]"
                        case "text": "'\(tag)'"
                        case "text[]": "ARRAY['wydm9', 'wydm8']"
                        case "double precision": "37.5"
                        case "bigint", "integer": "21"
                        default: "NULL"
                        }
                    }
                    let lines = try await connection.query(
                        PostgresQuery(unsafeSQL: "EXPLAIN EXECUTE feed\(index)(\(arguments.joined(separator: ", ")))"), logger: logger
                    ).collect().map { try $0.decode(String.self) }
                    let text = lines.joined(separator: "\n")
                    #expect(name.hasPrefix("nearby") || !text.contains("Sort  (cost"), "\(name) sorts:\n\(text)")
                    // Neither the feed's rows (`c`) nor the parents' check (`p`) may read the whole table.
                    #expect(!text.contains("Seq Scan on cards"), "\(name) reads all cards:\n\(text)")
                    #expect(!text.contains("Seq Scan on likes"), "\(name) reads all likes:\n\(text)")
                    #expect(text.contains("Index"), "\(name):\n\(text)")
                    if name.hasPrefix("nearby") {
                        // Each prefix through its index: read in order (at 1M cards, an index-only scan),
                        // or, as here where a prefix holds a dozen cards, all of them at once.
                        #expect(text.contains("cards_nearby_p\(name.split(separator: " ")[3].dropLast())_idx"), "\(name):\n\(text)")
                    }
                }
                try await connection.close()
            } catch {
                try? await connection.close()
                throw error
            }
        }
    }
}
