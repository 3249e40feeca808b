import Foundation
import HummingbirdTesting
import Testing

@Suite("Blocks against PostgreSQL")
struct BlockTests {
    @Test("a block removes follows both ways with their counts, and neither side can follow the other")
    func blockRemovesFollows() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(2)
            let (a, b) = (try await client.accountID(tokens[0]), try await client.accountID(tokens[1]))
            #expect(try await client.relate(tokens[0], "follow", b).status == .ok)
            #expect(try await client.relate(tokens[1], "follow", a).status == .ok)
            for _ in 0..<2 {
                let blocked = try await client.relate(tokens[0], "block", b)
                #expect(try blocked.status == .ok && blocked.object["blocked"] as? Bool == true)
            }
            #expect(try await database.scalar("SELECT count(*)::int FROM follows") == 0)
            #expect(try await database.followDrift() == 0)
            #expect(try await database.scalar("SELECT count(*)::int FROM notifications") == 0)
            // The blocked side: the blocker is gone. The blocker: 200 with isBlocked, and no following.
            #expect(try await client.send(.get, "/v1/users/\(a)", token: tokens[1]).status == .notFound)
            let seen = try await client.send(.get, "/v1/users/\(b)", token: tokens[0])
            #expect(try seen.status == .ok && seen.object["isBlocked"] as? Bool == true)
            let theirs = try await client.relate(tokens[1], "follow", a)
            #expect(theirs.status == .notFound)
            let mine = try await client.relate(tokens[0], "follow", b)
            #expect(mine.status == .forbidden && mine.errorCode == "blocked")
            #expect(try await client.relate(tokens[0], "follow", b, false).status == .forbidden)
            #expect(try await client.send(.get, "/v1/users/\(a)/followers", token: tokens[1]).status == .notFound)
            #expect(try await client.send(.get, "/v1/users/\(a)/cards", token: tokens[1]).status == .notFound)
            #expect(try await database.scalar("SELECT count(*)::int FROM follows") == 0)

            let blocks = try await client.allPages("/v1/me/blocks", token: tokens[0])
            #expect(blocks.map(\.id) == [b] && Set(blocks[0].keys) == ["id", "nickname", "profileImage", "isOperator"])
            #expect(try await client.allPages("/v1/me/blocks", token: tokens[1]).isEmpty)

            let unblocked = try await client.relate(tokens[0], "block", b, false)
            #expect(try unblocked.status == .ok && unblocked.object["blocked"] as? Bool == false)
            #expect(try await client.send(.get, "/v1/users/\(a)", token: tokens[1]).status == .ok)
            #expect(try await client.relate(tokens[1], "follow", a).status == .ok)
            #expect(try await database.followDrift() == 0)
        }
    }

    @Test("a block hides each side's cards and comment cards from the other in every feed, list and detail")
    func blockHidesCards() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(3)
            let ids = try await tokens.asyncMap { try await client.accountID($0) }
            let (a, b, c) = (tokens[0], tokens[1], tokens[2])
            let aCard = try await client.postCard(a, "a의 카드", extra: ["tags": ["차단"], "location": ["latitude": 37.5, "longitude": 127.0]])
            let bCard = try await client.postCard(b, "b의 카드", extra: ["tags": ["차단"], "location": ["latitude": 37.5, "longitude": 127.0]])
            let cCard = try await client.postCard(c, "c의 카드")
            let bAnswer = try await client.postCard(b, "b의 답", parent: cCard.id)
            let aAnswer = try await client.postCard(a, "a의 답", parent: cCard.id)
            #expect(try await client.relate(c, "follow", ids[0]).status == .ok)
            #expect(try await client.relate(a, "follow", ids[1]).status == .ok)
            try await database.withCardRepository { try await $0.refreshPopularRanking(limit: 200, rescan: false) }

            #expect(try await client.relate(b, "block", ids[0]).status == .ok)
            let feeds = [
                "/v1/feeds/latest", "/v1/feeds/popular", "/v1/feeds/nearby?latitude=37.5&longitude=127&radiusKm=1",
                "/v1/tags/%EC%B0%A8%EB%8B%A8/cards", "/v1/cards/\(cCard.id)/comments",
            ]
            for (token, hidden, shown) in [
                (a, [bCard.id, bAnswer.id], [aCard.id, aAnswer.id]), (b, [aCard.id, aAnswer.id], [bCard.id, bAnswer.id]),
            ] {
                var seen: Set<String> = []
                for feed in feeds { seen.formUnion(try await client.allPages(feed, token: token).map(\.id)) }
                seen.formUnion(try await client.allPages("/v1/feeds/following", token: token).map(\.id))
                #expect(seen.isDisjoint(with: hidden), "\(seen) should not contain \(hidden)")
                #expect(Set(shown).isSubset(of: seen))
                for id in hidden {
                    #expect(try await client.send(.get, "/v1/cards/\(id)", token: token).status == .notFound)
                    #expect(try await client.send(.put, "/v1/cards/\(id)/like", token: token).status == .notFound)
                    let answer = try await client.send(
                        .post, "/v1/cards/\(id)/comments", json: ["content": "hi", "background": ["default": "sky-dawn"]], token: token)
                    #expect(answer.status == .notFound)
                    #expect(try await client.send(.get, "/v1/cards/\(id)/comments", token: token).status == .notFound)
                }
            }
            // A third account still sees both.
            let third = Set(try await client.allPages("/v1/feeds/latest", token: c).map(\.id))
            #expect(third.isSuperset(of: [aCard.id, bCard.id]))
            // The blocked side sees no such account; the blocker sees the account without its cards.
            #expect(try await client.send(.get, "/v1/users/\(ids[1])/cards", token: a).status == .notFound)
            #expect(try await client.allPages("/v1/users/\(ids[0])/cards", token: b).isEmpty)
            // Likes and comment counts did not move.
            #expect(try await database.scalar("SELECT count(*)::int FROM likes") == 0)
            #expect(try await database.scalar("SELECT comment_count FROM cards WHERE id = \(UUID(uuidString: cCard.id)!)") == 2)
            // The block hides the blocked account from lists too.
            #expect(try await client.relate(c, "follow", ids[1]).status == .ok)
            #expect(try await client.allPages("/v1/users/\(ids[2])/following", token: a).map(\.id) == [ids[0]])
            let cFollows = Set(try await client.allPages("/v1/users/\(ids[2])/following", token: c).map(\.id))
            #expect(cFollows == Set([ids[0], ids[1]]))
        }
    }

    @Test("block and follow racing between the same two accounts leave no follow behind and exact counts")
    func blockRace() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(12)
            let ids = try await tokens.asyncMap { try await client.accountID($0) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in stride(from: 0, to: 12, by: 2) {
                    let (x, y) = (tokens[index], tokens[index + 1])
                    let (xID, yID) = (ids[index], ids[index + 1])
                    group.addTask { _ = try await client.relate(x, "follow", yID) }
                    group.addTask { _ = try await client.relate(y, "follow", xID) }
                    group.addTask {
                        let response = try await client.relate(x, "block", yID)
                        #expect(response.status == .ok)
                    }
                    group.addTask { _ = try await client.relate(y, "follow", xID) }
                }
                try await group.waitForAll()
            }
            #expect(try await database.scalar("SELECT count(*)::int FROM follows") == 0)
            #expect(try await database.followDrift() == 0)
        }
    }
}
