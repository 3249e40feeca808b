import Foundation
import HummingbirdTesting
import Testing

/// Likes are private, floods reach their recipient once, and authors keep their threads clean
/// (issue 43, findings 3 and 9).
@Suite("Private likes and notification floods against PostgreSQL")
struct NotificationFloodTests {
    @Test("a card_liked notification names nobody, and an unread one goes away when its like is withdrawn")
    func likesArePrivate() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(3)
            let (author, liker, other) = (tokens[0], tokens[1], tokens[2])
            let card = try await client.postCard(author, "좋아요 받을 카드").id
            #expect(try await client.send(.put, "/v1/cards/\(card)/like", token: liker).status == .ok)
            #expect(try await client.send(.put, "/v1/cards/\(card)/like", token: other).status == .ok)
            let liked = try await client.notifications(author).filter { $0["type"] as? String == "card_liked" }
            #expect(liked.count == 2)
            for notification in liked {
                #expect(notification["actor"] is NSNull, "a like names its liker: \(notification)")
                #expect(notification["cardId"] as? String == card)
            }
            // The raw body never carries the likers' ids or nicknames either.
            let raw = String(buffer: try await client.send(.get, "/v1/notifications", token: author).body)
            for token in [liker, other] { #expect(!raw.contains(try await client.accountID(token))) }

            // Withdrawn: the unread notification goes; the other liker's stays.
            #expect(try await client.send(.delete, "/v1/cards/\(card)/like", token: liker).status == .ok)
            #expect(try await client.notifications(author).filter { $0["type"] as? String == "card_liked" }.count == 1)
            // A read one stays read (it was seen already); withdrawing then deletes nothing.
            #expect(try await client.send(.post, "/v1/notifications/read-all", token: author).status == .noContent)
            #expect(try await client.send(.delete, "/v1/cards/\(card)/like", token: other).status == .ok)
            #expect(try await client.notifications(author).filter { $0["type"] as? String == "card_liked" }.count == 1)
        }
    }

    @Test("a flood of comment cards and favourite-tag posts is one unread notification per commenter and card, and per tag")
    func floodsCoalesce() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(4)
            let victim = tokens[0]
            let flooders = Array(tokens[1...3])
            let card = try await client.postCard(victim, "조용히 있고 싶은 카드").id
            #expect(try await client.send(.put, "/v1/tags/조용/favorite", token: victim).status == .ok)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for flooder in flooders {
                    group.addTask {
                        for index in 0..<6 {
                            try await client.postCard(flooder, "댓글 \(index)", parent: card)
                            try await client.postCard(flooder, "태그 \(index)", extra: ["tags": ["조용"]])
                        }
                    }
                }
                try await group.waitForAll()
            }
            _ = try await database.withNotificationRepository { try await $0.deliverNewCardNotifications(limit: 1000) }
            let unread = try await client.notifications(victim, unread: true)
            #expect(unread.filter { $0["type"] as? String == "card_commented" }.count == 3, "one per commenter and card")
            #expect(unread.filter { $0["type"] as? String == "favorite_tag_used" }.count == 1, "one per tag")
            // Read, then one more of each: one new notice each.
            #expect(try await client.send(.post, "/v1/notifications/read-all", token: victim).status == .noContent)
            try await client.postCard(flooders[0], "또 댓글", parent: card)
            try await client.postCard(flooders[0], "또 태그", extra: ["tags": ["조용"]])
            _ = try await database.withNotificationRepository { try await $0.deliverNewCardNotifications(limit: 1000) }
            let again = try await client.notifications(victim, unread: true)
            #expect(again.filter { $0["type"] as? String == "card_commented" }.count == 1)
            #expect(again.filter { $0["type"] as? String == "favorite_tag_used" }.count == 1)
            // The card still counts every comment card.
            #expect(try await client.send(.get, "/v1/cards/\(card)", token: victim).object["commentCount"] as? Int == 19)
        }
    }

    @Test("a card's author may delete comment cards on it for everyone; nobody else may, and a top-level card stays its author's")
    func authorsCleanTheirThreads() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(3)
            let (author, commenter, stranger) = (tokens[0], tokens[1], tokens[2])
            let card = try await client.postCard(author, "내 스레드").id
            let comment = try await client.postCard(commenter, "원치 않는 댓글", parent: card, extra: ["tags": ["청소"]]).id
            let reply = try await client.postCard(stranger, "댓글의 댓글", parent: comment).id
            // Not the stranger's, not the commenter's parent card's author for the top-level card.
            #expect(try await client.send(.delete, "/v1/cards/\(comment)", token: stranger).errorCode == "not_owner")
            #expect(try await client.send(.delete, "/v1/cards/\(card)", token: commenter).errorCode == "not_owner")
            // The commenter (author of `comment`) may remove a reply to it, too: that is their thread.
            #expect(try await client.send(.delete, "/v1/cards/\(comment)", token: author).status == .noContent)
            #expect(try await client.send(.get, "/v1/cards/\(comment)", token: commenter).status == .notFound)
            let parent = try await client.send(.get, "/v1/cards/\(card)", token: stranger).object
            #expect(parent["commentCount"] as? Int == 0)
            #expect(try await client.usage("청소") == 0)
            #expect(try await client.send(.get, "/v1/cards/\(reply)", token: stranger).object["parentDeleted"] as? Bool == true)
            #expect(try await database.cardCountDrift() == 0)
        }
    }
}
