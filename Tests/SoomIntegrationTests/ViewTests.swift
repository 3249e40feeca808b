import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// Card views and profile visits: noted off the request path, counted in batches, each reader
/// once, exact under concurrency and withdrawals.
@Suite("Views and visits against PostgreSQL")
struct ViewTests {
    @Test("a card counts each reader once, never its author; lists show the count; a reader's withdrawal takes its view back")
    func cardViews() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(4)
            let card = try await client.postCard(tokens[0], "몇 명이 읽었을까")
            #expect(card["viewCount"] as? Int == 0)
            for _ in 0..<3 { #expect(try await client.send(.get, "/v1/cards/\(card.id)", token: tokens[0]).status == .ok) }
            for token in tokens.dropFirst() {
                for _ in 0..<2 { #expect(try await client.send(.get, "/v1/cards/\(card.id)", token: token).status == .ok) }
            }
            try await eventually("three readers counted", timeout: .seconds(10)) {
                try await client.send(.get, "/v1/cards/\(card.id)", token: tokens[1]).object["viewCount"] as? Int == 3
            }
            // Reading a list counts nothing, and shows the count.
            let feed = try await client.allPages("/v1/feeds/latest", token: tokens[2])
            #expect(feed.first { $0.id == card.id }?["viewCount"] as? Int == 3)
            try await Task.sleep(for: .seconds(1.5))
            #expect(try await database.scalar("SELECT view_count FROM cards") == 3)
            #expect(try await database.scalar("SELECT count(*)::int FROM card_views") == 3)

            #expect(try await TestDevice.made(3).withdraw(client, token: tokens[3]).status == .noContent)
            #expect(try await database.scalar("SELECT view_count FROM cards") == 2)
            #expect(try await database.viewDrift() == 0)
        }
    }

    @Test("a profile counts each visitor once ever and once today (UTC), never its owner; a new day starts today's count again")
    func profileVisits() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(5)
            let owner = try await client.accountID(tokens[0])
            #expect(try await client.send(.get, "/v1/users/\(owner)", token: tokens[0]).status == .ok)
            for token in tokens[1...3] {
                for _ in 0..<2 { #expect(try await client.send(.get, "/v1/users/\(owner)", token: token).status == .ok) }
            }
            // A last visitor, once: when it is counted, every visit noted before it is written too (a
            // flush writes all it has), so no batch lands after the days are moved back below.
            #expect(try await client.send(.get, "/v1/users/\(owner)", token: tokens[4]).status == .ok)
            try await eventually("four visitors counted", timeout: .seconds(10)) {
                let profile = try await client.send(.get, "/v1/users/\(owner)", token: tokens[0]).object
                return profile["visitCount"] as? Int == 4 && profile["visitsToday"] as? Int == 4
            }
            // Yesterday's visitors: a profile read today shows none today, and a returning visitor is
            // counted today again but not ever again.
            try await database.execute("UPDATE accounts SET visits_day = visits_day - 1")
            try await database.execute("UPDATE profile_visits SET last_day = last_day - 1")
            var profile = try await client.send(.get, "/v1/users/\(owner)", token: tokens[0]).object
            #expect(profile["visitCount"] as? Int == 4 && profile["visitsToday"] as? Int == 0)
            #expect(try await client.send(.get, "/v1/users/\(owner)", token: tokens[1]).status == .ok)
            try await eventually("the returning visitor counted today", timeout: .seconds(10)) {
                let profile = try await client.send(.get, "/v1/users/\(owner)", token: tokens[0]).object
                return profile["visitCount"] as? Int == 4 && profile["visitsToday"] as? Int == 1
            }
            // A visitor of today withdraws: both counts lose it; one of yesterday: only the total.
            #expect(try await TestDevice.made(1).withdraw(client, token: tokens[1]).status == .noContent)
            #expect(try await TestDevice.made(2).withdraw(client, token: tokens[2]).status == .noContent)
            profile = try await client.send(.get, "/v1/users/\(owner)", token: tokens[0]).object
            #expect(profile["visitCount"] as? Int == 2 && profile["visitsToday"] as? Int == 0)
            #expect(try await database.viewDrift() == 0)
        }
    }

    @Test("dozens of readers on two instances opening cards and profiles while some withdraw: every count equals its readers")
    func exactUnderConcurrency() async throws {
        try await withTwoTestApps(sessionCacheLifetime: 10) { one, two, database in
            let tokens = try await database.makeAccounts(40)
            let authorID = try await one.accountID(tokens[0])
            var posted: [String] = []
            for index in 0..<5 { posted.append(try await one.postCard(tokens[0], "카드 \(index)").id) }
            let cards = posted
            let others = try await withThrowingTaskGroup(of: String.self) { group in
                for token in tokens.dropFirst(34) { group.addTask { try await one.accountID(token) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, token) in tokens.enumerated() {
                    group.addTask {
                        let client = index.isMultiple(of: 2) ? one : two
                        for round in 0..<3 {
                            for card in cards { _ = try await client.send(.get, "/v1/cards/\(card)", token: token) }
                            _ = try await client.send(.get, "/v1/users/\(authorID)", token: token)
                            for other in others { _ = try await client.send(.get, "/v1/users/\(other)", token: token) }
                            // Six accounts with keys withdraw midway.
                            if round == 1, (1..<6).contains(index) {
                                #expect(try await TestDevice.made(index).withdraw(client, token: token).status == .noContent)
                                return
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            try await Task.sleep(for: .seconds(3))
            #expect(try await database.viewDrift() == 0)
            // 39 readers, of which 5 withdrew.
            #expect(try await database.scalar("SELECT min(view_count) FROM cards") == 34)
            #expect(try await database.scalar("SELECT max(view_count) FROM cards") == 34)
            #expect(try await one.send(.get, "/v1/users/\(authorID)", token: tokens[0]).object["visitCount"] as? Int == 34)
        }
    }
}

extension TestDatabase {
    /// Cards whose `view_count`, and accounts whose `visit_count` or today's visits, differ from
    /// their readers' rows.
    func viewDrift() async throws -> Int {
        try await self.scalar(
            """
            SELECT ((SELECT count(*) FROM cards c WHERE c.view_count <> (SELECT count(*) FROM card_views v WHERE v.card_id = c.id))
                  + (SELECT count(*) FROM accounts a WHERE a.visit_count <> (SELECT count(*) FROM profile_visits p WHERE p.owner_id = a.id))
                  + (SELECT count(*) FROM accounts a WHERE a.visits_day IS NOT NULL AND a.visits_today
                        <> (SELECT count(*) FROM profile_visits p WHERE p.owner_id = a.id AND p.last_day = a.visits_day)))::int
            """)
    }
}
