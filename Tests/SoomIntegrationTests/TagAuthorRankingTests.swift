import Foundation
import HummingbirdTesting
import Testing

/// The top ten ranks tags by how many different accounts use them (issue 43, finding 10): one
/// fresh account posting 30 cards tagged `spam0`…`spam9` listed exactly those ten.
@Suite("The top ten by accounts against PostgreSQL")
struct TagAuthorRankingTests {
    @Test("one account cannot fill the top ten: tags used by more accounts come first, usageCount stays the card count")
    func oneAccountCannotFillIt() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(4)
            let spammer = tokens[0]
            for round in 0..<3 {
                for index in 0..<10 { try await client.postTagged(spammer, ["spam\(index)", "round\(round)"]) }
            }
            for (index, token) in tokens[1...3].enumerated() {
                try await client.postTagged(token, ["산책"])
                if index > 0 { try await client.postTagged(token, ["커피"]) }
            }
            let ranked = try await client.tagList("/v1/tags/ranked")
            #expect(ranked.count == 10)
            #expect(Array(ranked.prefix(2)) == [TagCount("산책", 3), TagCount("커피", 2)], "\(ranked)")
            #expect(ranked.contains(TagCount("round0", 10)))
            #expect(try await database.tagDrift() == (0, 0))
        }
    }

    @Test("tag authors stay exact under parallel posts, deletes, hides and a withdrawal, by many accounts on a few tags")
    func exactUnderConcurrency() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(16)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, token) in tokens.enumerated() {
                    group.addTask {
                        var mine: [String] = []
                        for round in 0..<6 {
                            let tags = ["공통", "짝\(index % 2)", "라운드\(round % 3)"]
                            mine.append(try await client.postTagged(token, tags))
                            if round % 2 == 1 {
                                #expect(try await client.send(.delete, "/v1/cards/\(mine.removeFirst())", token: token).status == .noContent)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await database.tagDrift() == (0, 0))
            #expect(try await database.scalar("SELECT author_count FROM tags WHERE key = '공통'") == 16)
            // One account withdraws: it leaves every tag's authors.
            let withdrawn = try await TestDevice.a.register(client)
            try await client.postTagged(withdrawn.token, ["공통", "혼자"])
            #expect(try await database.scalar("SELECT author_count FROM tags WHERE key = '혼자'") == 1)
            #expect(try await TestDevice.a.withdraw(client, token: withdrawn.token).status == .noContent)
            #expect(try await database.scalar("SELECT author_count FROM tags WHERE key = '혼자'") == 0)
            #expect(try await database.scalar("SELECT author_count FROM tags WHERE key = '공통'") == 16)
            #expect(try await database.tagDrift() == (0, 0))
        }
    }
}
