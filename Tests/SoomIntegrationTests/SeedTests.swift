import Foundation
import Logging
import SoomData
import SoomDomain
import SoomSeed
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
        // The defaults: 20 follows and 2 favourite tags per account.
        #expect(summary.follows == 6000 && summary.favorites == 600)
        #expect(try await database.scalar("SELECT count(*)::int FROM cards WHERE parent_id IS NULL") == 3000)
        #expect(try await database.scalar("SELECT count(*)::int FROM likes") == 4000)
        let wrongLikes = try await database.scalar(
            "SELECT count(*)::int FROM cards c WHERE like_count <> (SELECT count(*) FROM likes l WHERE l.card_id = c.id)")
        let wrongComments = try await database.scalar(
            "SELECT count(*)::int FROM cards c WHERE comment_count <> (SELECT count(*) FROM cards k WHERE k.parent_id = c.id)")
        let wrongCards = try await database.scalar(
            "SELECT count(*)::int FROM accounts a WHERE card_count <> (SELECT count(*) FROM cards c WHERE c.author_id = a.id AND c.parent_id IS NULL)"
        )
        #expect(wrongLikes == 0 && wrongComments == 0 && wrongCards == 0)
        // Every seeded nickname is one the server accepts, keyed as the server keys it.
        let names = try await database.rows("SELECT nickname, nickname_key FROM accounts").map { try $0.decode((String, String).self) }
        #expect(names.filter { (try? Nickname(validating: $0.0)) == nil || Nickname.key(for: $0.0) != $0.1 }.isEmpty)
        // Tags: card_tags mirror every card's tags, and each usage count equals a recount.
        #expect(try await database.tagDrift() == (0, 0))
        #expect(try await database.scalar("SELECT count(*)::int FROM tags WHERE usage_count > 0") > 100)
        try await self.expectPeople(database, follows: 6000, favorites: 600)
        // Long-tailed: the most followed account is followed by everyone else, the typical one by few.
        #expect(try await database.scalar("SELECT max(follower_count) FROM accounts") == 299)
        #expect(try await database.scalar("SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY follower_count) FROM accounts") <= 13)
        #expect(try await database.scalar("SELECT count(*)::int FROM accounts WHERE follower_count >= 100") <= 25)
        // Favourites lean on popular tags: the most favourited tag is one of the five most used.
        #expect(
            try await database.scalar(
                """
                SELECT count(*)::int FROM (SELECT key FROM tags ORDER BY usage_count DESC, key LIMIT 5) AS top
                WHERE key = (SELECT tag_key FROM favorite_tags GROUP BY tag_key ORDER BY count(*) DESC, tag_key LIMIT 1)
                """) == 1)
        await #expect(throws: SeedError.self) { try await seeder.run(plan) }
        try await TestPostgres.shared.drop(configuration)
    }

    @Test("a complete social graph and nine favourites each: exact numbers even where random draws saturate")
    func dense() async throws {
        let configuration = try await TestPostgres.shared.makeDatabase()
        let database = TestDatabase(configuration: configuration)
        var logger = Logger(label: "soom-test-seed")
        logger.logLevel = .warning
        let plan = Seeder.Plan(accounts: 12, cards: 400, comments: 0, likes: 0, follows: 12 * 11, favorites: 9 * 12)
        let summary = try await Seeder(configuration: configuration, logger: logger).run(plan)
        #expect(summary.follows == 132 && summary.favorites == 108)
        try await self.expectPeople(database, follows: 132, favorites: 108)
        #expect(try await database.scalar("SELECT count(*)::int FROM accounts WHERE follower_count <> 11 OR following_count <> 11") == 0)
        try await TestPostgres.shared.drop(configuration)
    }

    @Test("plans the graph cannot hold are refused before anything is written, naming the number")
    func impossiblePlans() throws {
        func refusal(_ plan: Seeder.Plan) -> String? {
            do { try plan.validate() } catch { return error.description }
            return nil
        }
        #expect(refusal(Seeder.Plan(accounts: 10, cards: 10, comments: 0, likes: 0, follows: 90, favorites: 90)) == nil)
        #expect(refusal(Seeder.Plan(accounts: 10, cards: 10, comments: 0, likes: 0, follows: 91))?.contains("too many follows") == true)
        #expect(refusal(Seeder.Plan(accounts: 10, cards: 10, comments: 0, likes: 0, favorites: 91))?.contains("favorites must be") == true)
        #expect(refusal(Seeder.Plan(accounts: 10, cards: 0, comments: 0, likes: 0, favorites: 1))?.contains("favourite tags") == true)
        #expect(refusal(Seeder.Plan(accounts: 10, cards: 10, comments: 0, likes: 0, follows: -1))?.contains("follows must be") == true)
        // The defaults fit small plans: 20 per account, but never more than every pair.
        #expect(Seeder.Plan(accounts: 5).followCount == 20 && Seeder.Plan(accounts: 300).followCount == 6000)
        #expect(Seeder.Plan(accounts: 300).favoriteCount == 600)
        #expect(refusal(Seeder.Plan(accounts: 1, cards: 10, comments: 0, likes: 0)) == nil)
    }

    /// Follows and favourite tags as planned, and the counters equal a recount.
    private func expectPeople(_ database: TestDatabase, follows: Int, favorites: Int) async throws {
        #expect(try await database.scalar("SELECT count(*)::int FROM follows") == follows)
        // Nobody follows themselves (also a CHECK) and every follow is between two seeded accounts.
        #expect(try await database.scalar("SELECT count(*)::int FROM follows WHERE follower_id = followee_id") == 0)
        // A follow happens after both accounts exist and before now.
        #expect(
            try await database.scalar(
                """
                SELECT count(*)::int FROM follows f JOIN accounts a ON a.id = f.follower_id JOIN accounts b ON b.id = f.followee_id
                WHERE f.created_at <= a.created_at OR f.created_at <= b.created_at OR f.created_at >= now()
                """) == 0)
        let wrongFollowers = try await database.scalar(
            "SELECT count(*)::int FROM accounts a WHERE follower_count <> (SELECT count(*) FROM follows f WHERE f.followee_id = a.id)")
        let wrongFollowing = try await database.scalar(
            "SELECT count(*)::int FROM accounts a WHERE following_count <> (SELECT count(*) FROM follows f WHERE f.follower_id = a.id)")
        #expect(wrongFollowers == 0 && wrongFollowing == 0)
        #expect(try await database.scalar("SELECT coalesce(sum(follower_count), 0)::int FROM accounts") == follows)
        // Favourite tags: as many as planned, at most nine per account, each naming a tags row as it
        // is spelt there, made after the account exists and before now.
        #expect(try await database.scalar("SELECT count(*)::int FROM favorite_tags") == favorites)
        #expect(
            try await database.scalar("SELECT coalesce(max(n), 0)::int FROM (SELECT count(*) AS n FROM favorite_tags GROUP BY account_id) AS f") <= 9)
        #expect(
            try await database.scalar(
                "SELECT count(*)::int FROM favorite_tags f WHERE NOT EXISTS (SELECT 1 FROM tags t WHERE t.key = f.tag_key AND t.name = f.name)")
                == 0)
        #expect(
            try await database.scalar(
                """
                SELECT count(*)::int FROM favorite_tags f JOIN accounts a ON a.id = f.account_id
                WHERE f.created_at <= a.created_at OR f.created_at >= now()
                """) == 0)
    }
}
