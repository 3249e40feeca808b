import Foundation
import HTTPTypes
import HummingbirdTesting
import SoomData
import SoomDomain
import Testing

/// Operator cards (`soom admin card post|unpin`): posted as the built-in operator account, pinned
/// to the top of the latest feed's first page until their time.
@Suite("Operator cards against PostgreSQL")
struct OperatorCardTests {
    static func draft(_ content: String) throws -> CardDraft {
        try CardDraft(content: content, font: nil, background: .builtIn("paper-cream"), tags: nil, story: nil, location: nil)
    }

    static func post(_ database: TestDatabase, _ content: String, pinnedFor seconds: TimeInterval?) async throws -> String {
        let outcome = try await database.withOperators {
            try await $0.postOperatorCard(try Self.draft(content), pinUntil: seconds.map { Date().addingTimeInterval($0) })
        }
        guard case .posted(let id) = outcome else { throw TestDatabaseError(detail: "not posted: \(outcome)") }
        return id.uuidString.lowercased()
    }

    @Test("pinned operator cards lead the latest feed's first page, newest three, beyond the limit; later pages and other feeds show them plain")
    func pinnedLead() async throws {
        try await withTwoTestApps(sessionCacheLifetime: 10) { one, two, database in
            let tokens = try await database.makeAccounts(2)
            let operatorCards = [
                try await Self.post(database, "공지 0", pinnedFor: 3600), try await Self.post(database, "공지 1", pinnedFor: 3600),
                try await Self.post(database, "공지 2", pinnedFor: 3600), try await Self.post(database, "공지 3", pinnedFor: 3600),
            ]
            let plainOperatorCard = try await Self.post(database, "고정 안 함", pinnedFor: nil)
            var userCards: [String] = []
            for number in 0..<3 { userCards.append(try await one.postCard(tokens[0], "사람 카드 \(number)").id) }

            func firstPage(_ client: some TestClientProtocol, limit: Int = 2) async throws -> (ids: [String], pinned: [Bool], body: [String: Any]) {
                let body = try await client.send(.get, "/v1/feeds/latest?limit=\(limit)", token: tokens[1]).object
                let items = body["items"] as? [[String: Any]] ?? []
                return (items.map(\.id), items.map { $0["pinned"] as? Bool ?? false }, body)
            }
            for client in [one, two] as [any TestClientProtocol] {
                try await eventually("the pins reach the instance", timeout: .seconds(5)) {
                    try await firstPage(client).ids.prefix(3) == [operatorCards[3], operatorCards[2], operatorCards[1]]
                }
                let page = try await firstPage(client)
                #expect(
                    page.ids == [operatorCards[3], operatorCards[2], operatorCards[1], userCards[2], userCards[1]], "three pinned, then the limit")
                #expect(page.pinned == [true, true, true, false, false])
                let items = page.body["items"] as? [[String: Any]] ?? []
                #expect(items.prefix(3).allSatisfy { ($0["author"] as? [String: Any])?["isOperator"] as? Bool == true })
                #expect(items.suffix(2).allSatisfy { ($0["author"] as? [String: Any])?["isOperator"] as? Bool == false })
            }
            // Later pages and other feeds: ordinary cards, each once, the pinned ones in their place too.
            let all = try await one.allPages("/v1/feeds/latest", token: tokens[1], limit: 2)
            let ids = all.dropFirst(3).map(\.id)
            #expect(Set(ids).count == ids.count, "no card twice: \(ids)")
            #expect(ids == userCards.reversed() + [plainOperatorCard] + operatorCards.reversed())
            #expect(all.dropFirst(3).allSatisfy { $0["pinned"] as? Bool == false })
            #expect(ids.contains(plainOperatorCard) && ids.contains(operatorCards[0]))
            let operatorID = try #require((all.first?["author"] as? [String: Any])?["id"] as? String)
            let theirs = try await one.allPages("/v1/users/\(operatorID)/cards", token: tokens[1])
            #expect(theirs.count == 5 && theirs.allSatisfy { $0["pinned"] as? Bool == false })
            let profile = try await one.send(.get, "/v1/users/\(operatorID)", token: tokens[1]).object
            #expect(profile["isOperator"] as? Bool == true && profile["nickname"] as? String == Nickname.operatorName)
            let me = try await one.send(.get, "/v1/me", token: tokens[1]).object
            #expect(me["isOperator"] == nil, "Me has no isOperator")

            // Unpinned, and a pin that ran out: gone from the top within seconds, on both instances.
            #expect(try await database.withOperators { try await $0.unpin(cardID: UUID(uuidString: operatorCards[3])!) })
            #expect(try await database.withOperators { try await $0.unpin(cardID: UUID(uuidString: operatorCards[3])!) } == false)
            try await database.execute(
                "UPDATE cards SET pinned_until = now() - interval '1 second' WHERE id = \(UUID(uuidString: operatorCards[2])!)")
            for client in [one, two] as [any TestClientProtocol] {
                try await eventually("the unpin reaches the instance", timeout: .seconds(5)) {
                    try await firstPage(client).ids.prefix(2) == [operatorCards[1], operatorCards[0]]
                }
                #expect(try await firstPage(client).pinned == [true, true, false, false])
            }
        }
    }

    @Test("the operator account is made once with the reserved name, cannot sign in, and a deleted pinned card leaves the top")
    func operatorAccount() async throws {
        try await withTestApp { client, database in
            let first = try await database.withOperators { try await $0.operatorAccount() }
            let second = try await database.withOperators { try await $0.operatorAccount() }
            #expect(first == second && first.isOperator && first.nickname == Nickname.operatorName)
            #expect(try await database.scalar("SELECT count(*)::int FROM accounts WHERE is_operator") == 1)
            // Nobody may register the name or a look-alike.
            let check = try await client.send(.post, "/v1/nicknames/validation", json: ["nickname": "운 영 자"]).object
            #expect(check["available"] as? Bool == false)

            let token = try await database.makeAccounts(1)[0]
            let pinned = try await Self.post(database, "곧 지울 공지", pinnedFor: 3600)
            try await eventually("the pin shows", timeout: .seconds(5)) {
                (try await client.send(.get, "/v1/feeds/latest", token: token).object["items"] as? [[String: Any]])?.first?.id == pinned
            }
            try await database.execute("DELETE FROM cards WHERE id = \(UUID(uuidString: pinned)!)")
            try await eventually("a deleted pinned card leaves the top", timeout: .seconds(5)) {
                let items = try await client.send(.get, "/v1/feeds/latest", token: token).object["items"] as? [[String: Any]] ?? []
                return !items.contains { $0.id == pinned }
            }
        }
    }
}
