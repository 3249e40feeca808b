import Foundation
import PostgresNIO
import Testing

@testable import SoomData

@Suite("Popular ranking from candidates")
struct PopularRankingTests {
    static let limit = 10

    @Test(
        "rounds from the candidates rank exactly as reading every card would, through likes, unlikes, hides, unhides, new cards and cards leaving the week; too few candidates above the threshold fall back to a rescan"
    )
    func fromCandidates() async throws {
        try await withFreshDatabase { configuration in
            let database = TestDatabase(configuration: configuration)
            try await database.insertBurst(accounts: 20, cards: 400)
            // An hour old, so that only the cards each round posts are "new" to it; scores spread
            // (ties included) by a hash of the ID.
            try await database.execute(
                """
                UPDATE cards SET created_at = created_at - interval '1 hour',
                    like_count = abs(hashtext(id::text)) % 30, comment_count = abs(hashtext(id::text || 'c')) % 7
                """)
            try await Self.round(database, rescan: true)
            #expect(try await Self.ranking(database) == (try await Self.expected(database)))
            #expect(try await Self.ranking(database).count == Self.limit)
            #expect(try await database.scalar("SELECT cardinality(card_ids) FROM popular_candidates") == 5 * Self.limit)
            #expect(try await database.scalar("SELECT count(*)::int FROM popular_touched") == 0)

            for round in 1...12 {
                let salt = "round \(round)"
                // Likes on cards below the ranking, some enough to enter it.
                try await database.execute(
                    """
                    UPDATE cards SET like_count = like_count + 3 + abs(hashtext(id::text || \(salt))) % 25
                    WHERE id IN (SELECT id FROM cards WHERE parent_id IS NULL ORDER BY md5(id::text || \(salt)) LIMIT 6)
                    """)
                // Unlikes and deleted comment cards on ranked cards.
                try await database.execute(
                    """
                    UPDATE cards SET like_count = like_count / 3, comment_count = 0
                    WHERE id IN (SELECT card_id FROM popular_rankings WHERE generation = (SELECT max(generation) FROM popular_generations)
                                 ORDER BY md5(card_id::text || \(salt)) LIMIT 2)
                    """)
                // A ranked card hidden by reports, and every third round the hidden ones shown again.
                try await database.execute(
                    """
                    UPDATE cards SET hidden_at = now()
                    WHERE id = (SELECT card_id FROM popular_rankings WHERE generation = (SELECT max(generation) FROM popular_generations)
                                ORDER BY md5(card_id::text || \(salt) || 'hide') LIMIT 1)
                    """)
                if round % 3 == 0 { try await database.execute("UPDATE cards SET hidden_at = NULL WHERE hidden_at IS NOT NULL") }
                // A ranked card leaving the week.
                try await database.execute(
                    """
                    UPDATE cards SET created_at = now() - interval '8 days'
                    WHERE id = (SELECT card_id FROM popular_rankings WHERE generation = (SELECT max(generation) FROM popular_generations)
                                ORDER BY md5(card_id::text || \(salt) || 'age') LIMIT 1)
                    """)
                // New cards: one with likes already (an import), two without.
                try await database.execute(
                    """
                    INSERT INTO cards (id, author_id, content, font, background_kind, background_ref, tags, created_at, like_count)
                    SELECT gen_random_uuid(), (SELECT id FROM accounts ORDER BY id LIMIT 1), 'new ' || n, 'default', 'default', 'sea-calm', '{}',
                           now(), CASE WHEN n = 1 THEN 40 ELSE 0 END
                    FROM generate_series(1, 3) n
                    """)
                let rescannedBefore = try await Self.rescannedAt(database)
                try await Self.round(database, rescan: false)
                #expect(try await Self.ranking(database) == (try await Self.expected(database)), "\(salt)")
                #expect(try await Self.rescannedAt(database) == rescannedBefore, "\(salt): ranked from the candidates, without a rescan")
                #expect(try await database.scalar("SELECT count(*)::int FROM popular_touched") == 0, "\(salt): the changes were claimed")
            }

            // Every candidate hidden: the cards below the threshold may now rank, so the round rescans.
            try await database.execute("UPDATE cards SET hidden_at = now() WHERE id IN (SELECT unnest(card_ids) FROM popular_candidates)")
            let rescannedBefore = try await Self.rescannedAt(database)
            try await Self.round(database, rescan: false)
            #expect(try await Self.ranking(database) == (try await Self.expected(database)))
            #expect(try await Self.ranking(database).count == Self.limit)
            #expect(try await Self.rescannedAt(database) > rescannedBefore, "rescanned")

            // More changes than a tenth of the cards plus a thousand (an import): one pass is cheaper.
            try await Self.round(database, rescan: false)
            let beforeImport = try await Self.rescannedAt(database)
            try await database.execute("UPDATE cards SET like_count = like_count + 1 WHERE parent_id IS NULL")
            try await database.execute("UPDATE cards SET like_count = like_count + 1 WHERE parent_id IS NULL")
            try await database.execute("UPDATE cards SET like_count = like_count + 1 WHERE parent_id IS NULL")
            #expect(try await database.scalar("SELECT count(*)::int FROM popular_touched") > 1_000 + 440 / 10)
            try await Self.round(database, rescan: false)
            #expect(try await Self.rescannedAt(database) > beforeImport, "rescanned after an import")
            #expect(try await Self.ranking(database) == (try await Self.expected(database)))
            #expect(try await database.scalar("SELECT count(*)::int FROM popular_touched") == 0)

            // A statement posting more than a thousand cards, counters set (a bulk import): no row
            // per card, the next round rescans.
            try await database.execute(
                """
                INSERT INTO cards (id, author_id, content, font, background_kind, background_ref, tags, created_at, like_count)
                SELECT gen_random_uuid(), (SELECT id FROM accounts ORDER BY id LIMIT 1), 'imported ' || n, 'default', 'default', 'sea-calm', '{}',
                       now() - n * interval '1 minute', n % 97
                FROM generate_series(1, 1200) n
                """)
            #expect(try await database.scalar("SELECT count(*)::int FROM popular_touched") == 0)
            let beforeBulk = try await Self.rescannedAt(database)
            try await Self.round(database, rescan: false)
            #expect(try await Self.rescannedAt(database) > beforeBulk, "rescanned after a bulk import")
            #expect(try await Self.ranking(database) == (try await Self.expected(database)))
        }
    }

    @Test(
        "a round's candidates and threshold: more cards than kept raise the threshold; with a threshold, fewer cards than the ranking are not trusted"
    )
    func roundShape() {
        typealias Ranked = PopularRankingStatements.Ranked
        let cards = (0..<60).map { Ranked(id: UUID(), score: 100 - $0, micros: 0) }
        let kept = PopularRankingStatements.Round(ranked: Array(cards.prefix(51)), above: nil, limit: 10)
        #expect(kept?.ranking.map(\.id) == cards.prefix(10).map(\.id))
        #expect(kept?.candidates.count == 50)
        #expect(kept?.threshold == cards[50], "the first card left out")

        let threshold = Ranked(id: UUID(), score: 1, micros: 0)
        let few = PopularRankingStatements.Round(ranked: Array(cards.prefix(20)), above: threshold, limit: 10)
        #expect(few?.threshold == threshold, "no more cards than kept: the threshold stays")
        #expect(few?.candidates.count == 20)
        #expect(PopularRankingStatements.Round(ranked: Array(cards.prefix(9)), above: threshold, limit: 10) == nil)
        let fewWithout = PopularRankingStatements.Round(ranked: Array(cards.prefix(9)), above: nil, limit: 10)
        #expect(fewWithout?.ranking.count == 9, "without a threshold every card was a candidate: exact however few")
        let rescan = PopularRankingStatements.Round(rescanned: Array(cards.prefix(9)), limit: 10)
        #expect(rescan.ranking.count == 9, "a rescan is exact however few")
        #expect(rescan.threshold == nil)
    }

    static func round(_ database: TestDatabase, rescan: Bool) async throws {
        try await database.withCardRepository { try await $0.refreshPopularRanking(limit: Self.limit, rescan: rescan) }
    }

    /// The newest generation's cards, in rank order.
    static func ranking(_ database: TestDatabase) async throws -> [UUID] {
        try await database.rows(
            "SELECT card_id FROM popular_rankings WHERE generation = (SELECT max(generation) FROM popular_generations) ORDER BY rank"
        ).map { try $0.decode(UUID.self) }
    }

    /// The ranking by definition: every live top-level card of the week, best score first, then newest.
    static func expected(_ database: TestDatabase) async throws -> [UUID] {
        try await database.rows(
            """
            SELECT id FROM cards WHERE parent_id IS NULL AND created_at > now() - interval '7 days'
              AND (expires_at IS NULL OR expires_at > now()) AND hidden_at IS NULL
            ORDER BY 5 * like_count + 3 * comment_count DESC, created_at DESC, id DESC LIMIT \(Self.limit)
            """
        ).map { try $0.decode(UUID.self) }
    }

    static func rescannedAt(_ database: TestDatabase) async throws -> Date {
        try await database.rows("SELECT rescanned_at FROM popular_candidates")[0].decode(Date.self)
    }
}
