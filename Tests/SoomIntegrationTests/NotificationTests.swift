import Foundation
import HummingbirdTesting
import Testing

@Suite("Notifications against PostgreSQL")
struct NotificationTests {
    @Test("likes, comment cards and follows notify, once per actor, never oneself, with the contract's shape")
    func notifiedOnce() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(3)
            let ids = try await tokens.asyncMap { try await client.accountID($0) }
            let (author, fan, other) = (tokens[0], tokens[1], tokens[2])
            let card = try await client.postCard(author, "내 카드")
            #expect(try await client.send(.put, "/v1/cards/\(card.id)/like", token: author).status == .ok)
            try await client.postCard(author, "self answer", parent: card.id)
            for _ in 0..<3 {
                #expect(try await client.send(.put, "/v1/cards/\(card.id)/like", token: fan).status == .ok)
                #expect(try await client.send(.delete, "/v1/cards/\(card.id)/like", token: fan).status == .ok)
                #expect(try await client.relate(fan, "follow", ids[0]).status == .ok)
                #expect(try await client.relate(fan, "follow", ids[0], false).status == .ok)
            }
            // Each unlike took its unread notification back; the like that stays leaves one, naming nobody.
            #expect(try await client.send(.put, "/v1/cards/\(card.id)/like", token: fan).status == .ok)
            let answer = try await client.postCard(other, "답", parent: card.id)
            let items = try await client.notifications(author)
            #expect(items.map { $0["type"] as? String } == ["card_commented", "card_liked", "followed"])
            for item in items {
                #expect(Set(item.keys) == ["id", "type", "createdAt", "read", "actor", "cardId", "tag", "until"])
                #expect(item["read"] as? Bool == false && item["tag"] is NSNull && item["until"] is NSNull)
            }
            #expect((items[0]["actor"] as? [String: Any])?["id"] as? String == ids[2] && items[0]["cardId"] as? String == card.id)
            #expect((items[2]["actor"] as? [String: Any])?["id"] as? String == ids[1] && items[2]["cardId"] is NSNull)
            #expect(items[1]["cardId"] as? String == card.id && items[1]["actor"] is NSNull)
            _ = answer
            #expect(try await client.notifications(fan).isEmpty)
            #expect(try await client.notifications(other).isEmpty)

            // Read: one, then a new like after reading makes a new unread one.
            let likeID = try #require(items[1]["id"] as? String)
            #expect(try await client.send(.post, "/v1/notifications/\(likeID)/read", token: author).status == .noContent)
            #expect(try await client.send(.post, "/v1/notifications/\(likeID)/read", token: author).status == .noContent)
            #expect(try await client.send(.post, "/v1/notifications/\(likeID)/read", token: fan).status == .notFound)
            #expect(try await client.send(.post, "/v1/notifications/\(UUID().uuidString)/read", token: author).status == .notFound)
            #expect(try await client.send(.post, "/v1/notifications/nope/read", token: author).status == .notFound)
            #expect(try await client.notifications(author, unread: true).count == 2)
            #expect(try await Self.unread(client, author) == (2, ["card_commented": 1, "followed": 1]))
            #expect(try await Self.unread(client, fan) == (0, [:]))
            // Unliking leaves a read notification alone; liking again makes a new unread one.
            #expect(try await client.send(.delete, "/v1/cards/\(card.id)/like", token: fan).status == .ok)
            #expect(try await client.send(.put, "/v1/cards/\(card.id)/like", token: fan).status == .ok)
            #expect(
                try await client.notifications(author, unread: true).map { $0["type"] as? String } == ["card_liked", "card_commented", "followed"])
            #expect(try await Self.unread(client, author) == (3, ["card_liked": 1, "card_commented": 1, "followed": 1]))
            #expect(try await client.send(.get, "/v1/notifications/unread-count").status == .unauthorized)
            #expect(try await client.send(.post, "/v1/notifications/read-all", token: author).status == .noContent)
            #expect(try await client.notifications(author, unread: true).isEmpty)
            #expect(try await Self.unread(client, author) == (0, [:]))
            let all = try await client.notifications(author)
            #expect(all.count == 4 && all.allSatisfy { $0["read"] as? Bool == true })
            let bad = try await client.send(.get, "/v1/notifications?unread=yes", token: author)
            #expect(bad.status == .badRequest && bad.errorField == "unread")
            let page = try await client.send(.get, "/v1/notifications?limit=1", token: author).object
            let cursor = try #require(page["nextCursor"] as? String)
            let foreign = try await client.send(.get, "/v1/notifications?unread=true&cursor=\(cursor)", token: author)
            #expect(foreign.status == .badRequest && foreign.errorCode == "invalid_cursor")
        }
    }

    @Test("favourite tags notify their other favouriters after the post, once per card, never across a block")
    func favoriteTagUsed() async throws {
        // Without the background job, so the queue can be seen before delivery.
        try await withTestApp(backgroundJobs: false) { client, database in
            let tokens = try await database.makeAccounts(4)
            let ids = try await tokens.asyncMap { try await client.accountID($0) }
            let (poster, fan, blocker, bystander) = (tokens[0], tokens[1], tokens[2], tokens[3])
            for token in [poster, fan, blocker] {
                #expect(try await client.send(.put, "/v1/tags/%ED%95%98%EB%8A%98/favorite", token: token).status == .ok)
            }
            #expect(try await client.send(.put, "/v1/tags/Sea/favorite", token: fan).status == .ok)
            #expect(try await client.relate(blocker, "block", ids[0]).status == .ok)
            let untagged = try await client.postCard(poster, "no favourite tags", extra: ["tags": ["아무도"]])
            _ = untagged
            #expect(try await database.scalar("SELECT count(*)::int FROM tag_notification_outbox") == 0)
            let card = try await client.postCard(poster, "하늘과 바다", extra: ["tags": ["sea", "#하늘"]])
            #expect(try await database.scalar("SELECT count(*)::int FROM tag_notification_outbox") == 1)
            _ = try await database.withNotificationRepository { try await $0.deliverNewCardNotifications(limit: 50) }
            #expect(try await database.scalar("SELECT count(*)::int FROM tag_notification_outbox") == 0)
            let items = try await client.notifications(fan)
            #expect(items.count == 1)
            #expect(items.first?["type"] as? String == "favorite_tag_used" && items.first?["cardId"] as? String == card.id)
            #expect(items.first?["tag"] as? String == "sea")
            #expect((items.first?["actor"] as? [String: Any])?["id"] as? String == ids[0])
            #expect(try await client.notifications(poster).isEmpty)
            #expect(try await client.notifications(blocker).isEmpty)
            #expect(try await client.notifications(bystander).isEmpty)
        }
    }

    @Test("the background job delivers favourite-tag notifications within seconds, without being called")
    func favoriteTagJob() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(2)
            #expect(try await client.send(.put, "/v1/tags/job/favorite", token: tokens[1]).status == .ok)
            try await client.postCard(tokens[0], "tagged", extra: ["tags": ["job"]])
            var delivered: [[String: Any]] = []
            for _ in 0..<50 where delivered.isEmpty {
                try await Task.sleep(for: .milliseconds(200))
                delivered = try await client.notifications(tokens[1])
            }
            #expect(delivered.count == 1)
        }
    }

    @Test("a block deletes the notifications between the two and stops new ones")
    func blockedNotifications() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(2)
            let ids = try await tokens.asyncMap { try await client.accountID($0) }
            let card = try await client.postCard(tokens[0], "카드")
            #expect(try await client.send(.put, "/v1/cards/\(card.id)/like", token: tokens[1]).status == .ok)
            #expect(try await client.notifications(tokens[0]).count == 1)
            #expect(try await client.relate(tokens[0], "block", ids[1]).status == .ok)
            #expect(try await client.notifications(tokens[0]).isEmpty)
            #expect(try await client.relate(tokens[0], "block", ids[1], false).status == .ok)
            #expect(try await client.notifications(tokens[0]).isEmpty)
        }
    }

    /// `GET /v1/notifications/unread-count`: the total and the counts by type.
    static func unread(_ client: some TestClientProtocol, _ token: String) async throws -> (Int, [String: Int]) {
        let body = try await client.send(.get, "/v1/notifications/unread-count", token: token).object
        return (body["total"] as? Int ?? -1, body["byType"] as? [String: Int] ?? ["missing": -1])
    }
}
