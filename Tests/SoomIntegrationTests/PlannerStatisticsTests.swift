import Foundation
import Logging
import PostgresNIO
import Testing

@testable import SoomData

@Suite("Planner statistics on a growing database")
struct PlannerStatisticsTests {
    @Test("a burst of cards after the plans were made: analysed within one round, then nothing is due; a table autovacuum would not reach is covered")
    func burst() async throws {
        try await withFreshDatabase { configuration in
            let database = TestDatabase(configuration: configuration)
            // Autovacuum off for the growing tables: only `PlannerStatistics` may analyse them here.
            for table in ["accounts", "cards", "likes"] {
                try await database.execute("ALTER TABLE \(unescaped: table) SET (autovacuum_enabled = off)")
            }
            try await database.withDatabase { pool in
                let statistics = PlannerStatistics(database: pool)
                // A new deployment: empty tables are never due, however often the job looks.
                _ = try await statistics.refresh()
                #expect(!(try await statistics.refresh()).contains("cards"))

                try await database.insertBurst(accounts: 200, cards: 20_000)
                #expect(try await Self.estimatedRows("cards", in: database) < 1000, "no statistics yet for the new rows")

                let analysed = try await statistics.refresh()
                #expect(analysed.contains("cards") && analysed.contains("accounts"), "\(analysed)")
                let estimate = try await Self.estimatedRows("cards", in: database)
                #expect(estimate > 18_000 && estimate < 22_000, "reltuples \(estimate)")
                #expect(try await statistics.refresh() == [], "nothing is due right after")

                // Likes change the cards' counts: changes beyond the threshold make the table due again.
                try await database.execute(
                    """
                    UPDATE cards SET like_count = like_count + 1
                    WHERE id IN (SELECT id FROM cards ORDER BY created_at DESC LIMIT \(PlannerStatistics.changedRows + 2_100))
                    """)
                // The updating session reports its counts as it ends, after the client has moved on.
                var due: [String] = []
                try await eventually("the changed cards are counted") {
                    due = try await statistics.refresh()
                    return !due.isEmpty
                }
                #expect(due == ["cards"])
            }
        }
    }

    static func estimatedRows(_ table: String, in database: TestDatabase) async throws -> Int {
        try await database.scalar("SELECT reltuples::int FROM pg_class WHERE relname = \(table) AND relkind = 'r'")
    }
}
