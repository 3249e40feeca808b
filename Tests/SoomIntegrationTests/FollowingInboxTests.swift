import Foundation
import HummingbirdTesting
import PostgresNIO
import SoomApp
import Testing

@testable import SoomData

/// The following inbox (migration 0013, `FollowingInbox`, `FollowingStatements`): a reader who
/// follows `wideFollowing` accounts or more reads their following feed from rows written when the
/// cards were posted, and the feed stays exactly its definition — through the opening, the fill,
/// follows, unfollows, blocks, hidden cards and cards older than the inbox's edge.
@Suite("Following inbox against PostgreSQL")
struct FollowingInboxTests {
    @Test("a wide reader's feed is its definition before, during and after the inbox opens, and above its edge it is the inbox")
    func inboxLifecycle() async throws {
        try await withTestApp(backgroundJobs: false) { client, database in
            let tokens = try await database.makeAccounts(5)
            var ids: [UUID] = []
            for token in tokens { ids.append(try #require(UUID(uuidString: try await client.accountID(token)))) }
            let (reader, first, second) = (ids[0], ids[1], ids[2])
            let wide = FollowingStatements.wideFollowing
            // `wide - 1` followed accounts made in SQL, and as many the reader does not follow, each
            // with a card 10 days ago (below any edge), one 2 days ago and one an hour ago.
            try await database.execute(
                """
                WITH made AS (
                    INSERT INTO accounts (id, key_fingerprint, public_key, nickname, nickname_key, created_at)
                    SELECT gen_random_uuid(), sha256(('inbox' || i)::bytea), '\\x00', 'inbox' || i, 'inbox' || i, now()
                    FROM generate_series(1, \(2 * (wide - 1))) i RETURNING id, nickname),
                followed AS (
                    INSERT INTO follows (follower_id, followee_id, created_at)
                    SELECT \(reader), id, now() FROM made WHERE substr(nickname, 6)::int < \(wide) RETURNING 1),
                carded AS (
                    INSERT INTO cards (id, author_id, content, font, background_kind, background_ref, created_at)
                    SELECT gen_random_uuid(), m.id, 'old ' || m.nickname, 'default', 'default', 'paper', now() - ago
                    FROM made m, unnest(ARRAY[interval '10 days', interval '2 days', interval '1 hour']) ago RETURNING author_id)
                UPDATE accounts a SET following_count = (SELECT count(*) FROM followed), card_count = 0 WHERE a.id = \(reader)
                """)
            try await database.execute(
                """
                UPDATE accounts a SET card_count = (SELECT count(*) FROM cards WHERE author_id = a.id),
                                      follower_count = (SELECT count(*) FROM follows WHERE followee_id = a.id)
                WHERE nickname LIKE 'inbox%'
                """)
            try await client.postCard(tokens[2], "second, before it is followed")
            try await Self.expectDefinition(client, database, tokens[0], reader, "fan-out on read, before the opening")

            // The follow that reaches the threshold opens the inbox; posts fan out from then on.
            #expect(try await client.relate(tokens[0], "follow", first.uuidString).status == .ok)
            #expect(
                try await database.scalar("SELECT count(*)::int FROM accounts WHERE id = \(reader) AND inbox_since IS NOT NULL AND NOT inbox_ready")
                    == 1)
            #expect(try await database.scalar("SELECT count(*)::int FROM follows WHERE follower_id = \(reader) AND NOT inbox") == 0)
            for index in 1...3 { try await client.postCard(tokens[1], "first \(index)") }
            for index in 1...4 { try await client.postCard(tokens[3], "stranger \(index)") }
            #expect(try await database.scalar("SELECT count(*)::int FROM following_inbox WHERE reader_id = \(reader)") == 3)
            try await Self.expectDefinition(client, database, tokens[0], reader, "opened, not yet filled")

            // Not filled before its grace has passed; then filled with the last 7 days. (Times from
            // the opening itself: on a loaded machine the grace may pass during this test.)
            let opened = try await database.rows("SELECT inbox_since FROM accounts WHERE id = \(reader)")[0].decode(Date.self)
            let filled = try await database.withDatabase { pool in
                let inbox = FollowingInbox(database: pool)
                return (early: try await inbox.fill(now: opened + inbox.grace - 1), late: try await inbox.fill(now: opened + inbox.grace + 1))
            }
            #expect(filled.early == 0 && filled.late == 1)
            #expect(
                try await database.scalar(
                    "SELECT count(*)::int FROM accounts WHERE id = \(reader) AND inbox_ready AND inbox_since < now() - interval '6 days'") == 1)
            // 3 by the first account, and two of each followed account made in SQL (not the 10-day-old one).
            #expect(try await database.scalar("SELECT count(*)::int FROM following_inbox WHERE reader_id = \(reader)") == 3 + 2 * (wide - 1))
            try await Self.expectDefinition(client, database, tokens[0], reader, "ready: the inbox, then fan-out on read below its edge")

            // Above the edge, pages are the inbox: a card whose row is gone is not in them.
            let dropped = try await database.rows(
                "DELETE FROM following_inbox WHERE reader_id = \(reader) AND author_id = \(first) RETURNING card_id")
            #expect(dropped.count == 3)
            // Behind the server's back: which cards the reader's pages hold shows within the page lifetime.
            try await Task.sleep(for: .milliseconds(AppConfiguration.defaultFeedCacheLifetime * 1000 + 100))
            let withoutRows = try await client.allPages("/v1/feeds/following", token: tokens[0], limit: 50).map(\.id)
            #expect(withoutRows.count == (try await Self.definition(database, reader)).count - 3)
            try await database.execute(
                """
                INSERT INTO following_inbox (reader_id, created_at, card_id, author_id)
                SELECT \(reader), created_at, id, author_id FROM cards WHERE author_id = \(first) AND parent_id IS NULL
                """)

            // A follow once ready copies the followee's cards; unfollows, blocks and hidden cards vanish.
            #expect(try await client.relate(tokens[0], "follow", second.uuidString).status == .ok)
            try await client.postCard(tokens[2], "second, after it is followed")
            #expect(try await database.scalar("SELECT count(*)::int FROM following_inbox WHERE reader_id = \(reader) AND author_id = \(second)") == 2)
            try await Self.expectDefinition(client, database, tokens[0], reader, "after a follow")
            let unfollowed = try await database.rows(
                "SELECT followee_id FROM follows WHERE follower_id = \(reader) AND followee_id NOT IN (\(first), \(second)) LIMIT 1"
            )[0].decode(UUID.self)
            #expect(try await client.relate(tokens[0], "follow", unfollowed.uuidString, false).status == .ok)
            #expect(try await client.relate(tokens[0], "block", first.uuidString).status == .ok)
            try await database.execute(
                "UPDATE cards SET hidden_at = now() WHERE id = (SELECT card_id FROM following_inbox WHERE reader_id = \(reader) AND author_id = \(second) LIMIT 1)"
            )
            try await Self.expectDefinition(client, database, tokens[0], reader, "after an unfollow, a block and a hidden card")

            // Past the horizon: the edge moves up and the rows below it go; the feed stays whole.
            let trimmed = try await database.withDatabase { pool in try await FollowingInbox(database: pool).trim(now: Date() + 6 * 24 * 3600) }
            #expect(trimmed > 0)
            #expect(
                try await database.scalar(
                    "SELECT count(*)::int FROM following_inbox WHERE created_at < (SELECT inbox_since FROM accounts WHERE id = \(reader))") == 0)
            try await Self.expectDefinition(client, database, tokens[0], reader, "after the edge moved up")

            // Withdrawal takes the inbox with it.
            #expect(try await database.scalar("SELECT count(*)::int FROM following_inbox WHERE reader_id = \(reader)") > 0)
            #expect(try await TestDevice.made(0).withdraw(client, token: tokens[0]).status == .noContent)
            #expect(try await database.scalar("SELECT count(*)::int FROM following_inbox WHERE reader_id = \(reader)") == 0)
        }
    }

    @Test("posts racing follows and the opening leave every card of a followed account in the inbox exactly once")
    func racingPostsAndFollows() async throws {
        try await withTestApp(backgroundJobs: false) { client, database in
            let wide = FollowingStatements.wideFollowing
            let tokens = try await database.makeAccounts(17)
            var accounts: [UUID] = []
            for token in tokens { accounts.append(try #require(UUID(uuidString: try await client.accountID(token)))) }
            let ids = accounts
            let reader = ids[0]
            try await database.execute(
                """
                WITH made AS (
                    INSERT INTO accounts (id, key_fingerprint, public_key, nickname, nickname_key, created_at)
                    SELECT gen_random_uuid(), sha256(('race' || i)::bytea), '\\x00', 'race' || i, 'race' || i, now()
                    FROM generate_series(1, \(wide - 8)) i RETURNING id),
                followed AS (INSERT INTO follows (follower_id, followee_id, created_at) SELECT \(reader), id, now() FROM made RETURNING 1)
                UPDATE accounts SET following_count = (SELECT count(*) FROM followed) WHERE id = \(reader)
                """)
            try await database.execute("UPDATE accounts SET follower_count = 1 WHERE nickname LIKE 'race%'")
            // Sixteen authors post five cards each while the reader follows all of them: the
            // eighth follow opens the inbox in the middle of it.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for author in 1...16 {
                    group.addTask {
                        for index in 1...5 { try await client.postCard(tokens[author], "race \(author) \(index)") }
                    }
                    group.addTask {
                        let followed = try await client.relate(tokens[0], "follow", ids[author].uuidString)
                        #expect(followed.status == .ok)
                    }
                }
                try await group.waitForAll()
            }
            _ = try await database.withDatabase { pool in try await FollowingInbox(database: pool).fill(now: Date() + 3600) }
            #expect(try await database.scalar("SELECT count(*)::int FROM accounts WHERE id = \(reader) AND inbox_ready") == 1)
            let missing = try await database.scalar(
                """
                SELECT count(*)::int FROM cards c JOIN follows f ON f.followee_id = c.author_id AND f.follower_id = \(reader)
                WHERE c.parent_id IS NULL AND c.created_at >= (SELECT inbox_since FROM accounts WHERE id = \(reader))
                  AND NOT EXISTS (SELECT 1 FROM following_inbox i WHERE i.reader_id = \(reader) AND i.card_id = c.id)
                """)
            #expect(missing == 0)
            #expect(try await database.scalar("SELECT count(*)::int FROM following_inbox WHERE reader_id = \(reader)") == 80)
            try await Self.expectDefinition(client, database, tokens[0], reader, "after the race", atLeast: 80)
        }
    }

    /// The following feed by definition: live top-level cards of the accounts the reader follows,
    /// newest first.
    private static func definition(_ database: TestDatabase, _ reader: UUID) async throws -> [String] {
        try await database.rows(
            """
            SELECT c.id FROM cards c JOIN follows f ON f.followee_id = c.author_id AND f.follower_id = \(reader)
            WHERE c.parent_id IS NULL AND c.hidden_at IS NULL AND (c.expires_at IS NULL OR c.expires_at > now())
            ORDER BY c.created_at DESC, c.id DESC
            """
        ).map { try $0.decode(UUID.self).uuidString.lowercased() }
    }

    /// Every page size walks the feed to its end and finds exactly the definition.
    private static func expectDefinition(
        _ client: any TestClientProtocol, _ database: TestDatabase, _ token: String, _ reader: UUID, _ when: String,
        atLeast minimum: Int = FollowingStatements.wideFollowing
    ) async throws {
        let expected = try await Self.definition(database, reader)
        #expect(expected.count >= minimum, "\(when): \(expected.count) cards")
        for limit in [7, 50] {
            let ids = try await client.allPages("/v1/feeds/following", token: token, limit: limit).map { $0.id.lowercased() }
            let firstDifference = zip(ids, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(ids.count, expected.count)
            #expect(
                ids == expected, "\(when), limit \(limit): \(ids.count) cards, \(expected.count) expected, first difference at \(firstDifference)")
        }
    }
}
