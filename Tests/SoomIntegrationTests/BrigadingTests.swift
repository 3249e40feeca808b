import Foundation
import HummingbirdTesting
import Logging
import SoomData
import SoomDomain
import Testing

/// Report brigading (issue 43, finding 1): four accounts reporting four cards of one author at
/// once hid all four and spent the whole restriction ladder in the same second.
@Suite("Report rings against PostgreSQL")
struct BrigadingTests {
    @Test("a ring reporting four cards of one author at once hides one card and restricts once; its later reports weigh less; undo takes it back")
    func ringBurst() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(9)
            let author = tokens[0]
            let ring = Array(tokens[1...4])
            let others = Array(tokens[5...8])
            let authorID = try await client.accountID(author)
            var cards: [String] = []
            for index in 0..<4 { cards.append(try await client.postCard(author, "카드 \(index)").id) }

            // The burst: every member of the ring reports every card, all at once.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for card in cards {
                    for member in ring {
                        group.addTask {
                            let status = try await client.report(member, card).status
                            #expect(status == .accepted)
                        }
                    }
                }
                try await group.waitForAll()
            }
            // One card hidden: the same four reporters weigh 1/2 each on the next card, 2 in all.
            #expect(try await database.scalar("SELECT count(*)::int FROM cards WHERE hidden_at IS NOT NULL") == 1)
            let (count, until) = try await database.rows(
                "SELECT restriction_count, restricted_until FROM accounts WHERE id = \(UUID(uuidString: authorID)!)")[0].decode((Int, Date?).self)
            #expect(count == 1)
            let days = try #require(until).timeIntervalSinceNow / 86_400
            #expect(days > 0.9 && days < 1.1, "restricted for \(days) days, not one")
            let restrictions = try await client.notifications(author).filter { $0["type"] as? String == "posting_restricted" }
            #expect(restrictions.count == 1)

            // Reporters new to this author weigh 1 each: with the ring's four halves (2) already on
            // this card, two of them hide it. The author is restricted already, so the ladder does not move.
            let hidden = try await database.rows("SELECT id FROM cards WHERE hidden_at IS NOT NULL")[0].decode(UUID.self)
            let visible = try #require(cards.first { $0 != hidden.uuidString.lowercased() })
            var statuses: [UInt] = []
            for reporter in others { statuses.append(UInt(try await client.report(reporter, visible).status.code)) }
            #expect(statuses == [202, 202, 404, 404])
            #expect(try await database.scalar("SELECT count(*)::int FROM cards WHERE hidden_at IS NOT NULL") == 2)
            #expect(try await database.scalar("SELECT restriction_count FROM accounts WHERE id = \(UUID(uuidString: authorID)!)") == 1)

            // An operator sees the ring and undoes what it did.
            let ringIDs = try await ring.asyncMap { UUID(uuidString: try await client.accountID($0))! }
            let rings = try await database.withModeration { try await $0.rings(minimumCards: 2, limit: 10) }
            #expect(rings.count == 1 && rings.first?.authorID.uuidString.lowercased() == authorID)
            #expect(Set(rings.first?.reporters.map(\.id) ?? []) == Set(ringIDs))
            let undone = try await database.withModeration { try await $0.undoReports(by: ringIDs) }
            #expect(undone.cards.count == 2 && undone.authors.count == 1)
            #expect(try await database.scalar("SELECT count(*)::int FROM cards WHERE hidden_at IS NOT NULL") == 0)
            #expect(try await database.scalar("SELECT count(*)::int FROM reports") == 0)
            #expect(
                try await database.scalar(
                    "SELECT count(*)::int FROM accounts WHERE id = \(UUID(uuidString: authorID)!) AND restriction_count = 0 AND restricted_until IS NULL"
                )
                    == 1)
            #expect(try await database.cardCountDrift() == 0)
            #expect(
                try await client.send(.post, "/v1/cards", json: ["content": "다시", "background": ["default": "sea-calm"]], token: author).status
                    == .created)
        }
    }

    @Test("the weight of a report falls with each of the author's cards its reporter hid before")
    func weightsFall() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(5)
            let author = tokens[0]
            let ring = Array(tokens[1...4])
            let first = try await client.postCard(author, "첫째").id
            for member in ring { _ = try await client.report(member, first) }
            #expect(try await database.scalar("SELECT count(*)::int FROM cards WHERE hidden_at IS NOT NULL") == 1)
            // Restriction served (lifted by hand), then the same four report a new card: weight 2 < 4.
            try await database.execute("UPDATE accounts SET restricted_until = NULL")
            let second = try await client.postCard(author, "둘째").id
            for member in ring { #expect(try await client.report(member, second).status == .accepted) }
            #expect(try await database.scalar("SELECT count(*)::int FROM cards WHERE hidden_at IS NOT NULL") == 1)
        }
    }
}
