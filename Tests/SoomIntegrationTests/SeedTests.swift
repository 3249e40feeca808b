import Foundation
import Logging
import SoomData
import Testing

@Suite("soom seed")
struct SeedTests {
    @Test("a small seed has the planned rows, exact counters and valid nicknames; a second seed is refused without --force")
    func seed() async throws {
        let configuration = try await TestPostgres.shared.makeDatabase()
        let database = TestDatabase(configuration: configuration)
        var logger = Logger(label: "soom-test-seed")
        logger.logLevel = .warning
        let seeder = Seeder(configuration: configuration, logger: logger)
        var plan = Seeder.Plan()
        plan.accounts = 300
        plan.cards = 3000
        plan.comments = 500
        plan.likes = 4000
        let summary = try await seeder.run(plan)
        #expect(summary.accounts == 300 && summary.cards == 3000 && summary.comments == 500 && summary.likes == 4000)
        #expect(try await database.scalar("SELECT count(*)::int FROM cards WHERE parent_id IS NULL") == 3000)
        #expect(try await database.scalar("SELECT count(*)::int FROM likes") == 4000)
        let wrongLikes = try await database.scalar(
            "SELECT count(*)::int FROM cards c WHERE like_count <> (SELECT count(*) FROM likes l WHERE l.card_id = c.id)")
        let wrongComments = try await database.scalar(
            "SELECT count(*)::int FROM cards c WHERE comment_count <> (SELECT count(*) FROM cards k WHERE k.parent_id = c.id)")
        let wrongCards = try await database.scalar(
            "SELECT count(*)::int FROM accounts a WHERE card_count <> (SELECT count(*) FROM cards c WHERE c.author_id = a.id AND c.parent_id IS NULL)")
        #expect(wrongLikes == 0 && wrongComments == 0 && wrongCards == 0)
        #expect(try await database.scalar("SELECT count(*)::int FROM accounts WHERE char_length(nickname) > 8 OR nickname_key <> lower(nickname)") == 0)
        // Tags: card_tags mirror every card's tags, and each usage count equals a recount.
        #expect(try await database.tagDrift() == (0, 0))
        #expect(try await database.scalar("SELECT count(*)::int FROM tags WHERE usage_count > 0") > 100)
        await #expect(throws: SeedError.self) { try await seeder.run(plan) }
        try await TestPostgres.shared.drop(configuration)
    }
}
