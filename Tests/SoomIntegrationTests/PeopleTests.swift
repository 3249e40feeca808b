import Foundation
import HummingbirdTesting
import Testing

@Suite("Follows, profiles and the following feed against PostgreSQL")
struct PeopleTests {
    @Test("follow and unfollow are idempotent, counted on both accounts, and show in both profiles")
    func followAndProfile() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(2)
            let (me, them) = (try await client.accountID(tokens[0]), try await client.accountID(tokens[1]))
            for _ in 0..<2 {
                let followed = try await client.relate(tokens[0], "follow", them)
                #expect(followed.status == .ok)
                #expect(try followed.object["following"] as? Bool == true && followed.object["followerCount"] as? Int == 1)
            }
            let profile = try await client.send(.get, "/v1/users/\(them)", token: tokens[0])
            #expect(profile.status == .ok)
            let object = try profile.object
            #expect(
                Set(object.keys) == [
                    "id", "nickname", "profileImage", "isOperator", "bio", "cardCount", "followerCount", "followingCount",
                    "isFollowing", "isFollowedBy", "isBlocked", "isMe", "visitCount", "visitsToday",
                ])
            #expect(object["followerCount"] as? Int == 1 && object["followingCount"] as? Int == 0)
            #expect(object["isFollowing"] as? Bool == true && object["isFollowedBy"] as? Bool == false)
            #expect(object["isBlocked"] as? Bool == false && object["isMe"] as? Bool == false)
            let mine = try await client.send(.get, "/v1/users/\(me)", token: tokens[0]).object
            #expect(mine["isMe"] as? Bool == true && mine["followingCount"] as? Int == 1)
            let seen = try await client.send(.get, "/v1/users/\(me)", token: tokens[1]).object
            #expect(seen["isFollowedBy"] as? Bool == true && seen["isFollowing"] as? Bool == false)
            #expect(try await client.send(.get, "/v1/me", token: tokens[0]).object["followingCount"] as? Int == 1)

            for _ in 0..<2 {
                let unfollowed = try await client.relate(tokens[0], "follow", them, false)
                #expect(try unfollowed.object["following"] as? Bool == false && unfollowed.object["followerCount"] as? Int == 0)
            }
            #expect(try await database.followDrift() == 0)
            #expect(try await database.scalar("SELECT count(*)::int FROM follows") == 0)
        }
    }

    @Test("following yourself is 422, an unknown or malformed account 404, and nothing changes")
    func followRefusals() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            let me = try await client.accountID(token)
            let selfFollow = try await client.relate(token, "follow", me)
            #expect(selfFollow.status == .unprocessableContent && selfFollow.errorCode == "validation_failed" && selfFollow.errorField == "id")
            #expect(try await client.relate(token, "follow", UUID().uuidString).status == .notFound)
            #expect(try await client.relate(token, "follow", "not-an-id").status == .notFound)
            #expect(try await client.send(.get, "/v1/users/\(UUID().uuidString)", token: token).status == .notFound)
            #expect(try await client.send(.get, "/v1/users/\(me)").status == .unauthorized)
            let selfBlock = try await client.relate(token, "block", me)
            #expect(selfBlock.status == .unprocessableContent && selfBlock.errorField == "id")
            #expect(
                try await database.scalar(
                    "SELECT (SELECT count(*) FROM follows) + (SELECT count(*) FROM blocks) + (SELECT count(*) FROM notifications)") == 0)
            #expect(try await database.scalar("SELECT following_count + follower_count FROM accounts") == 0)
        }
    }

    @Test("follower counts are exact with 24 people following at once, twice each, then half unfollowing at once")
    func concurrentFollows() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(25)
            let target = try await client.accountID(tokens[0])
            let others = Array(tokens.dropFirst())
            try await withThrowingTaskGroup(of: Void.self) { group in
                for token in others + others {
                    group.addTask {
                        let response = try await client.relate(token, "follow", target)
                        #expect(response.status == .ok, "\(String(buffer: response.body))")
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await database.scalar("SELECT follower_count FROM accounts WHERE id = \(UUID(uuidString: target)!)") == 24)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for token in others.prefix(12) {
                    group.addTask {
                        let response = try await client.relate(token, "follow", target, false)
                        #expect(response.status == .ok)
                    }
                    group.addTask {
                        let response = try await client.relate(token, "follow", target, false)
                        #expect(response.status == .ok)
                    }
                }
                // Meanwhile the target follows some of them back.
                for token in others.suffix(6) {
                    let id = try await client.accountID(token)
                    group.addTask {
                        let response = try await client.relate(tokens[0], "follow", id)
                        #expect(response.status == .ok)
                    }
                }
                try await group.waitForAll()
            }
            let profile = try await client.send(.get, "/v1/users/\(target)", token: others[0]).object
            #expect(profile["followerCount"] as? Int == 12 && profile["followingCount"] as? Int == 6)
            #expect(try await database.followDrift() == 0)
            // One unread `followed` per follower, however often they followed.
            #expect(
                try await database.scalar(
                    "SELECT count(*)::int FROM notifications WHERE type = 'followed' AND recipient_id = \(UUID(uuidString: target)!)") == 24)
        }
    }

    @Test("followers and following are keyset pages of profiles, newest follow first, seen by the caller")
    func followLists() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(6)
            let ids = try await tokens.asyncMap { try await client.accountID($0) }
            for index in 1..<6 { #expect(try await client.relate(tokens[index], "follow", ids[0]).status == .ok) }
            #expect(try await client.relate(tokens[0], "follow", ids[3]).status == .ok)
            let followers = try await client.allPages("/v1/users/\(ids[0])/followers", token: tokens[1], limit: 2)
            #expect(followers.map(\.id) == Array(ids[1...5].reversed()))
            #expect(followers.first { $0.id == ids[1] }?["isMe"] as? Bool == true)
            let third = followers.first { $0.id == ids[3] }
            #expect(third?["isFollowedBy"] as? Bool == false && third?["followerCount"] as? Int == 1)
            let following = try await client.allPages("/v1/users/\(ids[0])/following", token: tokens[3])
            #expect(following.map(\.id) == [ids[3]] && following[0]["isMe"] as? Bool == true)
            #expect(try await client.allPages("/v1/users/\(ids[5])/following", token: tokens[0]).map(\.id) == [ids[0]])
            #expect(try await client.allPages("/v1/users/\(ids[5])/followers", token: tokens[0]).isEmpty)
            // A cursor belongs to its list.
            let page = try await client.send(.get, "/v1/users/\(ids[0])/followers?limit=1", token: tokens[1]).object
            let cursor = try #require(page["nextCursor"] as? String)
            let foreign = try await client.send(.get, "/v1/users/\(ids[0])/following?cursor=\(cursor)", token: tokens[1])
            #expect(foreign.status == .badRequest && foreign.errorCode == "invalid_cursor")
            #expect(try await client.send(.get, "/v1/users/\(UUID().uuidString)/followers", token: tokens[1]).status == .notFound)
        }
    }

    @Test("the following feed merges the followed accounts' top-level cards, newest first, without skips or repeats")
    func followingFeed() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(8)
            let ids = try await tokens.asyncMap { try await client.accountID($0) }
            var expected: [String] = []
            // Interleaved posts by seven authors (some prolific, one silent), with comment cards.
            for round in 0..<6 {
                for author in 1..<7 where author <= round + 2 {
                    let card = try await client.postCard(tokens[author], "\(author)-\(round)")
                    expected.insert(card.id, at: 0)
                    if round % 2 == 0 { try await client.postCard(tokens[7], "answer", parent: card.id) }
                }
            }
            for author in 1..<8 { #expect(try await client.relate(tokens[0], "follow", ids[author]).status == .ok) }
            try await client.postCard(tokens[0], "my own card is not in my following feed")
            for limit in [1, 2, 3, 7, 50] {
                let feed = try await client.allPages("/v1/feeds/following", token: tokens[0], limit: limit)
                #expect(feed.map(\.id) == expected, "limit \(limit)")
            }
            // Stable while new cards arrive: a page boundary does not move.
            let first = try await client.send(.get, "/v1/feeds/following?limit=4", token: tokens[0]).object
            try await client.postCard(tokens[1], "newer")
            var seen = ((first["items"] as? [[String: Any]]) ?? []).map(\.id)
            var cursor = first["nextCursor"] as? String
            while let next = cursor {
                let page = try await client.send(.get, "/v1/feeds/following?limit=5&cursor=\(next)", token: tokens[0]).object
                seen += ((page["items"] as? [[String: Any]]) ?? []).map(\.id)
                cursor = page["nextCursor"] as? String
                try #require(seen.count <= expected.count)
            }
            #expect(seen == expected)
            // Someone who follows nobody has an empty feed.
            #expect(try await client.allPages("/v1/feeds/following", token: tokens[7]).isEmpty)
        }
    }

    /// Both ways of finding a page (`FollowingStatements`): an account following 300 (over the
    /// threshold) starts with the window of the latest feed, one following 20 probes per author.
    /// The cards are laid out so that the wide reader's walk meets every case: a first page found
    /// in the window, a page that finds a few cards in the window and must continue below it
    /// (4,500 newer cards by strangers in between), and pages below which fewer cards than the
    /// window remain. Stories that expired and hidden cards are among them. Every page must
    /// equal what a plain query of all followed cards says.
    @Test("the following feed is exact for 300 follows (window of the latest feed) and for 20 (per-author probes)")
    func followingFeedStrategies() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(2)
            let wide = try await client.accountID(tokens[0])
            let narrow = try await client.accountID(tokens[1])
            try await database.execute(
                """
                WITH made AS (
                    INSERT INTO accounts (id, key_fingerprint, public_key, nickname, nickname_key, created_at)
                    SELECT gen_random_uuid(), sha256(i::text::bytea), '\\x00', 'strat' || i, 'strat' || i, now()
                    FROM generate_series(1, 600) i RETURNING id, nickname)
                INSERT INTO follows (follower_id, followee_id, created_at)
                SELECT \(UUID(uuidString: wide)!), id, now() FROM made WHERE substr(nickname, 6)::int <= 300
                UNION ALL
                SELECT \(UUID(uuidString: narrow)!), id, now() FROM made WHERE substr(nickname, 6)::int <= 20
                """)
            try await database.execute(
                "UPDATE accounts a SET following_count = (SELECT count(*) FROM follows WHERE follower_id = a.id)")
            // Oldest: 400 cards by followed accounts (every 7th an expired story, every 11th
            // hidden); then 4,500 by strangers; newest: 30 by followed accounts among 300 more.
            // Inserted by hand, with the authors' card counts in the same statement: the app's
            // story-expiry sweep, which decrements them, may run at any moment.
            try await database.execute(
                """
                WITH inserted AS (
                    INSERT INTO cards (id, author_id, content, font, background_kind, background_ref, created_at, expires_at, hidden_at)
                    SELECT gen_random_uuid(), a.id, 'card ' || i, 'default', 'default', 'paper', now() - interval '3 days' + i * interval '1 second',
                           CASE WHEN kind = 'old' AND i % 7 = 0 THEN now() - interval '1 hour' END,
                           CASE WHEN kind = 'old' AND i % 11 = 0 THEN now() END
                    FROM (SELECT i, CASE WHEN i <= 400 THEN 'old' WHEN i <= 4900 OR i % 11 <> 0 THEN 'stranger' ELSE 'new' END AS kind
                          FROM generate_series(1, 5230) i) s
                    JOIN accounts a ON a.nickname = 'strat' || CASE WHEN kind = 'stranger' THEN 301 + i % 300 ELSE 1 + i % 300 END
                    RETURNING author_id, hidden_at)
                UPDATE accounts a SET card_count = a.card_count + n.cards
                FROM (SELECT author_id, count(*) AS cards FROM inserted WHERE hidden_at IS NULL GROUP BY author_id) n
                WHERE a.id = n.author_id
                """)
            for (token, id) in [(tokens[0], wide), (tokens[1], narrow)] {
                let rows = try await database.rows(
                    """
                    SELECT c.id FROM cards c JOIN follows f ON f.followee_id = c.author_id AND f.follower_id = \(UUID(uuidString: id)!)
                    WHERE c.parent_id IS NULL AND c.hidden_at IS NULL AND (c.expires_at IS NULL OR c.expires_at > now())
                    ORDER BY c.created_at DESC, c.id DESC
                    """)
                let expected = try rows.map { try $0.decode(UUID.self).uuidString.lowercased() }
                #expect(expected.count > (id == wide ? 300 : 20))
                for limit in [7, 20, 50] {
                    let feed = try await client.allPages("/v1/feeds/following", token: token, limit: limit)
                    let ids = feed.map { $0.id.lowercased() }
                    let firstDifference =
                        zip(ids, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(ids.count, expected.count)
                    let same = ids == expected
                    #expect(
                        same,
                        "limit \(limit), \(id == wide ? "300" : "20") follows: \(ids.count) cards, \(expected.count) expected, first difference at \(firstDifference)"
                    )
                }
            }
        }
    }

    @Test("withdrawal takes its follows along and corrects the other accounts' counts")
    func withdrawalFollows() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(4)
            let ids = try await tokens.asyncMap { try await client.accountID($0) }
            #expect(try await client.relate(tokens[0], "follow", ids[1]).status == .ok)
            #expect(try await client.relate(tokens[2], "follow", ids[0]).status == .ok)
            #expect(try await client.relate(tokens[3], "follow", ids[0]).status == .ok)
            #expect(try await client.relate(tokens[0], "follow", ids[3]).status == .ok)
            let withdrawn = try await TestDevice.made(0).withdraw(client, token: tokens[0], reason: "bye")
            #expect(withdrawn.status == .noContent, "\(String(buffer: withdrawn.body))")
            #expect(try await database.followDrift() == 0)
            #expect(try await database.scalar("SELECT count(*)::int FROM follows") == 0)
            #expect(try await client.send(.get, "/v1/users/\(ids[1])", token: tokens[2]).object["followerCount"] as? Int == 0)
            #expect(try await client.send(.get, "/v1/users/\(ids[3])", token: tokens[2]).object["followingCount"] as? Int == 0)
        }
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
