import Foundation
import HummingbirdTesting
import Testing

/// The shared-page cache of the latest and tag feeds (`FeedPageCache`) at its longest lifetime,
/// one second, so that only the cache's rules can explain what the tests see.
@Suite("Feed page cache against PostgreSQL")
struct FeedPageCacheIntegrationTests {
    static let lifetime = 1.0

    static func page(_ client: some TestClientProtocol, _ token: String, _ path: String = "/v1/feeds/latest") async throws -> [[String: Any]] {
        let response = try await client.send(.get, path + "?limit=50", token: token)
        try #require(response.status == .ok, "\(path): \(String(buffer: response.body))")
        return try #require(try response.object["items"] as? [[String: Any]])
    }

    static func card(_ items: [[String: Any]], _ id: String) -> [String: Any]? { items.first { $0.id == id } }

    @Test("one instance shows its own changes at once: likes, posts, deletions, blocks and names; flags are each viewer's")
    func ownChanges() async throws {
        try await withTestApp(feedCacheLifetime: Self.lifetime) { client, database in
            let tokens = try await database.makeAccounts(3)
            let (reader, other, author) = (tokens[0], tokens[1], tokens[2])
            let first = try await client.postCard(author, "첫째", extra: ["tags": ["하늘"]]).id
            let second = try await client.postCard(author, "둘째").id
            let others = try await client.postCard(other, "다른 사람").id
            #expect(try await Self.page(client, reader).map(\.id) == [others, second, first])
            #expect(try await Self.page(client, reader, "/v1/tags/하늘/cards").map(\.id) == [first])

            #expect(try await client.send(.put, "/v1/cards/\(first)/like", token: reader).status == .ok)
            let readersView = try #require(Self.card(try await Self.page(client, reader), first))
            #expect(readersView["likedByMe"] as? Bool == true && readersView["likeCount"] as? Int == 1)
            let othersView = try #require(Self.card(try await Self.page(client, other), first))
            #expect(othersView["likedByMe"] as? Bool == false && othersView["likeCount"] as? Int == 1)
            #expect(Self.card(try await Self.page(client, other), others)?["isMine"] as? Bool == true)
            #expect(Self.card(try await Self.page(client, reader), others)?["isMine"] as? Bool == false)
            #expect(Self.card(try await Self.page(client, reader, "/v1/tags/하늘/cards"), first)?["likedByMe"] as? Bool == true)

            let third = try await client.postCard(other, "셋째").id
            #expect(try await Self.page(client, reader).first?.id == third)
            #expect(try await client.send(.delete, "/v1/cards/\(second)", token: author).status == .noContent)
            #expect(try await Self.page(client, reader).map(\.id) == [third, others, first])

            #expect(try await client.send(.patch, "/v1/me", json: ["nickname": "새이름"], token: author).status == .ok)
            #expect((Self.card(try await Self.page(client, reader), first)?["author"] as? [String: Any])?["nickname"] as? String == "새이름")

            // A block is the reader's own: their pages lose the author's cards at once, no one else's do.
            let authorID = try await client.accountID(author)
            #expect(try await client.relate(reader, "block", authorID).status == .ok)
            #expect(try await Self.page(client, reader).map(\.id) == [third, others])
            #expect(try await Self.page(client, reader, "/v1/tags/하늘/cards").isEmpty)
            #expect(try await Self.page(client, other).map(\.id) == [third, others, first])
            // Paging is unchanged by the cache: small pages, the same cards, no repeats.
            #expect(try await client.allPages("/v1/feeds/latest", token: other, limit: 1).map(\.id) == [third, others, first])
            #expect(try await client.allPages("/v1/feeds/latest", token: reader, limit: 1).map(\.id) == [third, others])

            // A withdrawal takes the account's cards off every page at once.
            #expect(try await TestDevice.made(1).withdraw(client, token: other, reason: "bye").status == .noContent)
            #expect(try await Self.page(client, reader).isEmpty)
        }
    }

    /// With the viewers' marks read for every page (`marksCacheLifetime: 0`); kept marks are
    /// `ViewerMarkCacheIntegrationTests`' (they show another instance's like within a notification's delay).
    @Test("another instance's changes show within the lifetime; the reader's likes (with their count) and blocks show at once")
    func otherInstance() async throws {
        try await withTwoTestApps(sessionCacheLifetime: 0, feedCacheLifetime: Self.lifetime, marksCacheLifetime: 0) { one, two, database in
            let tokens = try await database.makeAccounts(2)
            let (reader, author) = (tokens[0], tokens[1])
            let card = try await one.postCard(author, "처음").id

            // A change behind both instances' backs (as another instance's would be): a kept page
            // goes on showing the old text until its lifetime is over, and no longer.
            let read = ContinuousClock.now
            #expect(Self.card(try await Self.page(two, reader), card)?["content"] as? String == "처음")
            try await database.execute("UPDATE cards SET content = '바뀜' WHERE id = \(UUID(uuidString: card)!)")
            let changed = ContinuousClock.now
            let served = Self.card(try await Self.page(two, reader), card)?["content"] as? String
            if ContinuousClock.now - read < .milliseconds(900) { #expect(served == "처음", "served from memory within the lifetime") }
            // Every page kept at that moment was read before it and is dropped within the lifetime
            // (a page read later has the change): a read starting then shows it, however loaded the machine.
            try await Task.sleep(until: changed + .milliseconds(Int(Self.lifetime * 1000) + 10))
            #expect(Self.card(try await Self.page(two, reader), card)?["content"] as? String == "바뀜")

            // The reader's own like and block, made on the first instance, show on the second at once.
            _ = try await Self.page(two, reader)
            #expect(try await one.send(.put, "/v1/cards/\(card)/like", token: reader).status == .ok)
            let liked = try #require(Self.card(try await Self.page(two, reader), card))
            #expect(liked["likedByMe"] as? Bool == true && liked["likeCount"] as? Int == 1, "the reader's like is counted too")
            #expect(try await one.relate(reader, "block", try await one.accountID(author)).status == .ok)
            #expect(try await Self.page(two, reader).isEmpty)
        }
    }

    @Test("a kept page is not served once a story on it has expired")
    func expiredStory() async throws {
        try await withTestApp(feedCacheLifetime: Self.lifetime) { client, database in
            let tokens = try await database.makeAccounts(1)
            let story = try await client.postCard(tokens[0], "이야기", extra: ["story": true]).id
            let card = try await client.postCard(tokens[0], "카드").id
            // The story ends 700 ms after the UPDATE starts (PostgreSQL's now() is taken then), and at
            // most 700 ms after it returns.
            let beforeUpdate = ContinuousClock.now
            try await database.execute("UPDATE cards SET expires_at = now() + interval '700 milliseconds' WHERE id = \(UUID(uuidString: story)!)")
            let afterUpdate = ContinuousClock.now
            let first = try await Self.page(client, tokens[0]).map(\.id)
            if ContinuousClock.now < beforeUpdate + .milliseconds(650) {
                #expect(first == [card, story])
            } else {
                // A machine so loaded that the first read came after the story's end.
                #expect(first == [card] || first == [card, story])
            }
            // Past the story's end, still within the kept page's lifetime (1 s from the first read,
            // which came after afterUpdate). On a loaded machine the page may have expired as
            // well; then it is read again, with the same answer.
            try await Task.sleep(until: afterUpdate + .milliseconds(850))
            #expect(try await Self.page(client, tokens[0]).map(\.id) == [card])
        }
    }
}
