import Foundation
import HummingbirdTesting
import SoomApp
import Testing

/// `soom admin`'s moderation against PostgreSQL: exact counts both ways.
@Suite("Operator moderation against PostgreSQL")
struct ModerationTests {
    @Test("hide and unhide by hand: the card leaves and rejoins every count, its reports are cleared, its author told")
    func hideAndUnhide() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(3)
            let (author, reader) = (tokens[0], tokens[1])
            let authorID = try await client.accountID(author)
            let parent = try await client.postCard(reader, "부모")
            let card = try await client.postCard(author, "숨길 카드", extra: ["tags": ["Moderate", "관리"]])
            let answer = try await client.postCard(author, "숨길 답", parent: parent.id, extra: ["tags": ["관리"]])
            #expect(try await client.report(tokens[2], card.id).status == .accepted)
            let cardID = UUID(uuidString: card.id)!
            let answerID = UUID(uuidString: answer.id)!

            #expect(try await database.withModeration { try await $0.hide(cardID: cardID) })
            #expect(try await database.withModeration { try await $0.hide(cardID: answerID) })
            #expect(try await database.withModeration { try await $0.hide(cardID: cardID) } == false)
            #expect(try await database.withModeration { try await $0.hide(cardID: UUID()) } == false)
            #expect(try await client.send(.get, "/v1/cards/\(card.id)", token: reader).status == .notFound)
            #expect(try await database.storedUsage("관리") == 0)
            #expect(try await database.storedUsage("moderate") == 0)
            #expect(try await client.send(.get, "/v1/users/\(authorID)", token: reader).object["cardCount"] as? Int == 0)
            #expect(try await client.send(.get, "/v1/cards/\(parent.id)", token: reader).object["commentCount"] as? Int == 0)
            #expect(try await client.notifications(author).filter { $0["type"] as? String == "card_hidden" }.count == 2)
            // Hiding by hand restricts nobody.
            #expect(try await client.send(.get, "/v1/me", token: author).object["restrictedUntil"] is NSNull)
            #expect(try await database.cardCountDrift() == 0)
            #expect(try await database.tagDrift() == (0, 0))

            #expect(try await database.withModeration { try await $0.unhide(cardID: cardID) })
            #expect(try await database.withModeration { try await $0.unhide(cardID: answerID) })
            #expect(try await database.withModeration { try await $0.unhide(cardID: cardID) } == false)
            // `soom admin` works behind the server's back: its changes show within the page lifetime
            // (the parent's detail, read above, is kept with its old comment count until then).
            try await Task.sleep(for: .milliseconds(AppConfiguration.defaultFeedCacheLifetime * 1000 + 100))
            #expect(try await client.send(.get, "/v1/cards/\(card.id)", token: reader).status == .ok)
            #expect(try await client.allPages("/v1/tags/Moderate/cards", token: reader).map(\.id) == [card.id])
            #expect(try await database.storedUsage("관리") == 2)
            #expect(try await database.storedUsage("moderate") == 1)
            #expect(try await client.send(.get, "/v1/users/\(authorID)", token: reader).object["cardCount"] as? Int == 1)
            #expect(try await client.send(.get, "/v1/cards/\(parent.id)", token: reader).object["commentCount"] as? Int == 1)
            #expect(try await database.scalar("SELECT count(*)::int FROM reports") == 0)
            #expect(try await database.cardCountDrift() == 0)
            #expect(try await database.tagDrift() == (0, 0))
            // Its earlier reporter may report it again: the slate is clean.
            #expect(try await client.report(tokens[2], card.id).status == .accepted)
        }
    }

    @Test("restrict and unrestrict by hand: later end wins unless replaced; the author is told; posting follows")
    func restrictions() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            let id = UUID(uuidString: try await client.accountID(token))!
            let inTen = Date().addingTimeInterval(10 * 86_400)
            let inTwo = Date().addingTimeInterval(2 * 86_400)
            let first = try #require(try await database.withModeration { try await $0.restrict(accountID: id, until: inTen, replace: false) })
            #expect(abs(first.timeIntervalSince(inTen)) < 1)
            let kept = try #require(try await database.withModeration { try await $0.restrict(accountID: id, until: inTwo, replace: false) })
            #expect(abs(kept.timeIntervalSince(inTen)) < 1)
            let post = try await client.send(.post, "/v1/cards", json: ["content": "글", "background": ["default": "sea-calm"]], token: token)
            #expect(post.status.code == 423)
            let replaced = try #require(try await database.withModeration { try await $0.restrict(accountID: id, until: inTwo, replace: true) })
            #expect(abs(replaced.timeIntervalSince(inTwo)) < 1)
            #expect(try await client.notifications(token).filter { $0["type"] as? String == "posting_restricted" }.count == 3)
            #expect(try await database.withModeration { try await $0.restrict(accountID: UUID(), until: inTwo, replace: false) } == nil)

            #expect(try await database.withModeration { try await $0.unrestrict(accountID: id) })
            #expect(try await database.withModeration { try await $0.unrestrict(accountID: UUID()) } == false)
            try await client.postCard(token, "다시")
        }
    }

    @Test("the most-reported cards, with reasons, and the counts")
    func reportsAndCounts() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(4)
            let quiet = try await client.postCard(tokens[0], "조용")
            let loud = try await client.postCard(tokens[0], "시끄러운 카드")
            _ = try await client.postCard(tokens[1], "답", parent: quiet.id)
            for (index, token) in tokens.dropFirst().enumerated() {
                #expect(try await client.report(token, loud.id, reason: index == 0 ? "privacy" : "abuse").status == .accepted)
            }
            #expect(try await client.report(tokens[1], quiet.id, reason: "other").status == .accepted)
            let reported = try await database.withModeration { try await $0.mostReported(limit: 10) }
            #expect(reported.map(\.cardID.uuidString).map { $0.lowercased() } == [loud.id, quiet.id])
            #expect(reported[0].reports == 3 && reported[0].reasons == ["abuse": 2, "privacy": 1] && !reported[0].hidden)
            #expect(reported[0].preview == "시끄러운 카드")
            #expect(try await database.withModeration { try await $0.mostReported(limit: 1) }.count == 1)

            let counts = Dictionary(uniqueKeysWithValues: try await database.withModeration { try await $0.counts() }.map { ($0.name, $0.count) })
            #expect(counts["accounts"] == 4 && counts["cards"] == 2 && counts["comment cards"] == 1 && counts["reports"] == 4)
            #expect(counts["hidden cards"] == 0 && counts["live sessions"] == 4 && counts["restricted accounts"] == 0)
        }
    }
}
