import Foundation
import HummingbirdTesting
import PostgresNIO
import Testing

/// Card details and following pages answered from kept cards (`FeedPageCache`'s `KeptCard`s) and
/// kept positions on two instances sharing one database: what a reader did through one instance
/// shows on the other at once (a notification's delay); what others changed, within the cache's lifetime.
@Suite("Kept cards against PostgreSQL")
struct KeptCardsIntegrationTests {
    static func detail(_ client: some TestClientProtocol, _ token: String, _ card: String) async throws -> [String: Any]? {
        let response = try await client.send(.get, "/v1/cards/\(card)", token: token)
        if response.status == .notFound { return nil }
        try #require(response.status == .ok, "\(String(buffer: response.body))")
        return try response.object
    }

    static func following(_ client: some TestClientProtocol, _ token: String) async throws -> [[String: Any]] {
        try await FeedPageCacheIntegrationTests.page(client, token, "/v1/feeds/following")
    }

    @Test("a reader's likes, follows and blocks made on one instance show at once in the other's details and following pages")
    func otherInstance() async throws {
        try await withTwoTestApps(sessionCacheLifetime: 0, feedCacheLifetime: 1, marksCacheLifetime: 300) { one, two, database in
            let tokens = try await database.makeAccounts(3)
            let (reader, author, other) = (tokens[0], tokens[1], tokens[2])
            let authorID = try await one.accountID(author)
            let older = try await one.postCard(author, "먼저").id
            let card = try await one.postCard(author, "처음").id

            // The detail is kept on the second instance: a change behind both instances' backs
            // shows there within the lifetime, and a read starting after it shows it.
            #expect(try await Self.detail(two, reader, card)?["content"] as? String == "처음")
            try await database.execute("UPDATE cards SET content = '바뀜' WHERE id = \(UUID(uuidString: card)!)")
            let changed = ContinuousClock.now
            try await Task.sleep(until: changed + .milliseconds(1010))
            #expect(try await Self.detail(two, reader, card)?["content"] as? String == "바뀜")

            // The reader's like through the first instance: counted, and theirs, on the second at once.
            _ = try await Self.detail(two, reader, card)
            #expect(try await one.send(.put, "/v1/cards/\(card)/like", token: reader).status == .ok)
            try await eventually("the like shows on the second instance", timeout: .seconds(2)) {
                let seen = try await Self.detail(two, reader, card)
                return seen?["likedByMe"] as? Bool == true && seen?["likeCount"] as? Int == 1
            }
            let someone = try await Self.detail(two, other, card)
            #expect(someone?["likedByMe"] as? Bool == false && someone?["isMine"] as? Bool == false)
            #expect(try await Self.detail(two, author, card)?["isMine"] as? Bool == true)

            // Following: which cards the reader's pages hold is kept for the lifetime (a second)
            // too, but a follow and an unfollow made on the first instance reach the second by
            // notification (migration 0015's trigger): they show well within the lifetime.
            #expect(try await Self.following(two, reader).isEmpty)
            #expect(try await one.relate(reader, "follow", authorID).status == .ok)
            try await eventually("the follow shows on the second instance before its kept positions expire", timeout: .milliseconds(600)) {
                try await Self.following(two, reader).map(\.id) == [card, older]
            }
            let followed = try await Self.following(two, reader)
            #expect(followed.first?["likedByMe"] as? Bool == true && followed.first?["content"] as? String == "바뀜")
            // A followee's post through the other instance: within the lifetime, as on a shared page.
            let posted = try await one.postCard(author, "새것").id
            let postedAt = ContinuousClock.now
            try await Task.sleep(until: postedAt + .milliseconds(1010))
            #expect(try await Self.following(two, reader).map(\.id) == [posted, card, older], "a followee's post, within the lifetime")
            #expect(try await one.relate(reader, "follow", authorID, false).status == .ok)
            try await eventually("the unfollow shows on the second instance before its kept positions expire", timeout: .milliseconds(600)) {
                try await Self.following(two, reader).isEmpty
            }
            #expect(try await one.relate(reader, "follow", authorID).status == .ok)
            try await eventually("the second follow shows", timeout: .milliseconds(600)) {
                try await Self.following(two, reader).count == 3
            }

            // A block either way: the detail is 404 and the page empty, at once; the unblock undoes both.
            #expect(try await one.relate(author, "block", try await one.accountID(reader)).status == .ok)
            try await eventually("the block reaches the second instance", timeout: .seconds(2)) {
                try await Self.detail(two, reader, card) == nil
            }
            #expect(try await Self.following(two, reader).isEmpty)
            #expect(try await Self.detail(two, other, card) != nil, "others still see it")

            // A report: the card is gone for its reporter at once.
            let reported = try await one.postCard(other, "신고").id
            #expect(try await Self.detail(two, reader, reported) != nil)
            let report = try await one.send(.post, "/v1/cards/\(reported)/reports", json: ["reason": "other"], token: reader)
            #expect(report.status == .accepted, "\(String(buffer: report.body))")
            try await eventually("the report reaches the second instance", timeout: .seconds(2)) {
                try await Self.detail(two, reader, reported) == nil
            }

            // Deleted through the first instance: gone from the second within the lifetime.
            #expect(try await one.send(.delete, "/v1/cards/\(posted)", token: author).status == .noContent)
            let deleted = ContinuousClock.now
            try await Task.sleep(until: deleted + .milliseconds(1010))
            #expect(try await Self.detail(two, other, posted) == nil)
        }
    }

    @Test("one instance answers its own changes at once from its kept cards: a like's count, a comment, a deletion, a hidden card")
    func ownChanges() async throws {
        try await withTestApp(feedCacheLifetime: 1) { client, database in
            let tokens = try await database.makeAccounts(2)
            let (reader, author) = (tokens[0], tokens[1])
            let card = try await client.postCard(author, "카드").id
            #expect(try await Self.detail(client, reader, card)?["likeCount"] as? Int == 0)
            #expect(try await client.send(.put, "/v1/cards/\(card)/like", token: author).status == .ok)
            #expect(try await Self.detail(client, reader, card)?["likeCount"] as? Int == 1, "another's like, counted at once")
            try await client.postCard(author, "댓글", parent: card)
            #expect(try await Self.detail(client, reader, card)?["commentCount"] as? Int == 1, "a comment, counted at once")
            // Hidden behind the server's back: the author may still open it, read for them.
            try await database.execute("UPDATE cards SET hidden_at = now() WHERE id = \(UUID(uuidString: card)!)")
            try await Task.sleep(for: .milliseconds(1010))
            #expect(try await Self.detail(client, reader, card) == nil)
            #expect(try await Self.detail(client, author, card)?["isMine"] as? Bool == true)
            try await database.execute("UPDATE cards SET hidden_at = NULL WHERE id = \(UUID(uuidString: card)!)")
            #expect(try await Self.detail(client, reader, card) != nil)
            #expect(try await client.send(.delete, "/v1/cards/\(card)", token: author).status == .noContent)
            #expect(try await Self.detail(client, reader, card) == nil, "a deletion, at once")
        }
    }
}
