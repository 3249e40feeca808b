import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// `commentedByMe`: the caller wrote a live comment card on the card, in the detail and in every
/// list, whether the page is read for the caller or made from kept cards and the caller's marks.
@Suite("commentedByMe against PostgreSQL")
struct CommentedByMeTests {
    @Test("set by the caller's own live answer, in detail and lists; not by others'; gone with a deletion, a hide or a story's end")
    func followsTheAnswer() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(3)
            let (me, other, author) = (tokens[0], tokens[1], tokens[2])
            let card = try await client.postCard(author, "물어봐요")
            func flags(_ token: String) async throws -> (detail: Bool?, latest: Bool?, mine: Bool?) {
                let detail = try await client.send(.get, "/v1/cards/\(card.id)", token: token).object["commentedByMe"] as? Bool
                let latest = try await client.allPages("/v1/feeds/latest", token: token).first { $0.id == card.id }?["commentedByMe"] as? Bool
                let authorID = try await client.accountID(author)
                let theirs =
                    try await client.allPages("/v1/users/\(authorID)/cards", token: token).first { $0.id == card.id }?["commentedByMe"] as? Bool
                return (detail, latest, theirs)
            }
            // Read once before answering, so that the kept cards and the caller's marks are in memory.
            #expect(try await flags(me) == (false, false, false))
            let answer = try await client.postCard(me, "내 답", parent: card.id)
            #expect(answer["commentedByMe"] as? Bool == false)
            #expect(try await flags(me) == (true, true, true))
            #expect(try await flags(other) == (false, false, false))
            _ = try await client.postCard(other, "남의 답", parent: card.id)
            #expect(try await flags(me) == (true, true, true))

            // Deleted by me: gone at once.
            #expect(try await client.send(.delete, "/v1/cards/\(answer.id)", token: me).status == .noContent)
            #expect(try await flags(me) == (false, false, false))

            // Deleted by the card's author (keeping their thread clean): gone too.
            let second = try await client.postCard(me, "다시 답", parent: card.id)
            #expect(try await flags(me) == (true, true, true))
            #expect(try await client.send(.delete, "/v1/cards/\(second.id)", token: author).status == .noContent)
            try await eventually("the deletion reaches my marks") { try await flags(me) == (false, false, false) }

            // A story answer counts until its end, without a sweep.
            let story = try await client.postCard(me, "잠깐 답", parent: card.id, extra: ["story": true])
            #expect(try await flags(me) == (true, true, true))
            try await database.execute("UPDATE cards SET expires_at = now() + interval '1 second' WHERE id = \(UUID(uuidString: story.id)!)")
            try await Task.sleep(for: .seconds(1.5))
            #expect(try await flags(me) == (false, false, false))

            // Hidden by an operator: gone; shown again: back.
            let third = try await client.postCard(me, "또 답", parent: card.id)
            let thirdID = UUID(uuidString: third.id)!
            #expect(try await database.withModeration { try await $0.hide(cardID: thirdID) })
            try await eventually("the hide reaches my marks") { try await flags(me) == (false, false, false) }
            #expect(try await database.withModeration { try await $0.unhide(cardID: thirdID) })
            try await eventually("the unhide reaches my marks") { try await flags(me) == (true, true, true) }
        }
    }

    @Test("an answer posted through another instance shows on this one within moments")
    func otherInstance() async throws {
        try await withTwoTestApps(sessionCacheLifetime: 10, feedCacheLifetime: 0.5) { one, two, database in
            let tokens = try await database.makeAccounts(2)
            let card = try await one.postCard(tokens[1], "두 서버")
            func latest(_ client: some TestClientProtocol) async throws -> Bool? {
                try await client.allPages("/v1/feeds/latest", token: tokens[0]).first { $0.id == card.id }?["commentedByMe"] as? Bool
            }
            #expect(try await latest(one) == false)
            _ = try await two.postCard(tokens[0], "다른 서버에서 답", parent: card.id)
            try await eventually("the answer reaches the other instance's marks", timeout: .seconds(2)) { try await latest(one) == true }
        }
    }
}
