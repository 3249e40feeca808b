import Foundation
import HummingbirdTesting
import Testing

/// `usageCount` and the top ten against PostgreSQL: exact after every kind of change, under concurrency.
@Suite("Tag usage counts against PostgreSQL")
struct TagCountTests {
    @Test("creating and deleting cards and comment cards counts each card once per tag, whatever the spelling")
    func createAndDelete() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(2)
            let first = try await client.postTagged(tokens[0], ["#하늘", "Sky", "sky", " 하늘 "])
            let comment = try await client.postTagged(tokens[1], ["SKY", "바다"], parent: first)
            #expect(try await client.usage("하늘") == 1)
            #expect(try await client.usage("sky") == 2)
            #expect(try await client.usage("바다") == 1)
            // The first spelling seen is shown everywhere.
            let detail = try await client.send(.get, "/v1/tags/SKY").object
            #expect(detail["name"] as? String == "Sky" && detail["isFavorite"] as? Bool == false)
            #expect(try await client.send(.delete, "/v1/cards/\(first)", token: tokens[0]).status == .noContent)
            #expect(try await client.usage("하늘") == 0)
            #expect(try await client.usage("sky") == 1)
            #expect(try await client.send(.delete, "/v1/cards/\(comment)", token: tokens[1]).status == .noContent)
            #expect(try await client.usage("sky") == 0)
            #expect(try await client.usage("바다") == 0)
            // Deleting again, or someone else's card, changes nothing.
            #expect(try await client.send(.delete, "/v1/cards/\(comment)", token: tokens[1]).status == .notFound)
            let other = try await client.postTagged(tokens[0], ["sky"])
            #expect(try await client.send(.delete, "/v1/cards/\(other)", token: tokens[1]).status == .forbidden)
            #expect(try await client.usage("sky") == 1)
            #expect(try await client.tagList("/v1/tags/ranked") == [TagCount("Sky", 1)])
            #expect(try await database.tagDrift() == (0, 0))
        }
    }

    @Test("the top ten: at most ten, only in use, highest first, ties by name ignoring case")
    func rankedOrder() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(1)
            #expect(try await client.tagList("/v1/tags/ranked").isEmpty)
            // 12 tags: counts 1…4, three tags per count, names chosen to test case-insensitive ties.
            let names = ["banana", "Apple", "cherry", "Date", "elder", "fig", "Grape", "hazel", "ice", "Jack", "kiwi", "lime"]
            for (index, name) in names.enumerated() {
                for _ in 0...(index / 3) { try await client.postTagged(tokens[0], [name]) }
            }
            let ranked = try await client.tagList("/v1/tags/ranked")
            #expect(
                ranked.map(\.description) == [
                    "Jack=4", "kiwi=4", "lime=4", "Grape=3", "hazel=3", "ice=3", "Date=2", "elder=2", "fig=2", "Apple=1",
                ])
            #expect(try await client.tagList("/v1/tags/ranked", token: tokens[0]) == ranked)
        }
    }

    @Test("the top ten is exact after create, delete, withdrawal and story expiry")
    func rankedAfterEveryChange() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(3)
            let keep = try await client.postTagged(tokens[0], ["stay"])
            _ = keep
            var leaving: [String] = []
            for _ in 0..<3 { leaving.append(try await client.postTagged(tokens[1], ["gone", "stay"])) }
            _ = try await client.postTagged(tokens[0], ["gone"], parent: leaving[0])
            let story = try await client.postTagged(tokens[2], ["story", "stay"], story: true)
            _ = try await client.postTagged(tokens[0], ["story"], parent: story)
            #expect(try await client.tagList("/v1/tags/ranked").map(\.description) == ["stay=5", "gone=4", "story=2"])

            // Delete: released at once.
            #expect(try await client.send(.delete, "/v1/cards/\(leaving[2])", token: tokens[1]).status == .noContent)
            #expect(try await client.tagList("/v1/tags/ranked").map(\.description) == ["stay=4", "gone=3", "story=2"])

            // Withdrawal: its cards (and their tags) go in the same transaction; comment cards of others stay.
            let withdraw = try await TestDevice.made(1).withdraw(client, token: tokens[1], reason: "bye")
            #expect(withdraw.status == .noContent)
            #expect(try await client.tagList("/v1/tags/ranked").map(\.description) == ["stay=2", "story=2", "gone=1"])

            // Story expiry: the sweep releases the story; its comment card (not a story) stays.
            try await database.execute(
                "UPDATE cards SET created_at = created_at - interval '25 hours', expires_at = now() - interval '1 second' WHERE id = \(UUID(uuidString: story)!)"
            )
            // (The periodic sweep may get there first: either way the story is gone afterwards.)
            _ = try await database.withCardRepository { try await $0.sweepExpiredStories(limit: 100) }
            #expect(try await client.tagList("/v1/tags/ranked").map(\.description) == ["gone=1", "stay=1", "story=1"])
            #expect(try await database.tagDrift() == (0, 0))
        }
    }

    @Test("the story sweep runs within a minute: an expired story's tags are released without calling it by hand")
    func sweepJob() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(1)
            let story = try await client.postTagged(tokens[0], ["ephemeral"], story: true)
            try await database.execute("UPDATE cards SET expires_at = now() WHERE id = \(UUID(uuidString: story)!)")
            let deadline = Date().addingTimeInterval(60)
            while try await client.usage("ephemeral") != 0, Date() < deadline {
                try await Task.sleep(for: .seconds(1))
            }
            #expect(try await client.usage("ephemeral") == 0)
            #expect(try await client.tagList("/v1/tags/ranked").isEmpty)
        }
    }

    @Test("many clients creating and deleting cards with the same tags, and a withdrawal among them: counts equal a recount")
    func concurrency() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(6)
            let pool = ["하늘", "Sky", "sea", "바다", "sun", "moon"]
            let seed = try await client.postTagged(tokens[0], ["하늘", "sea"])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<12 {
                    let token = tokens[worker % tokens.count]
                    group.addTask {
                        var mine: [String] = []
                        for step in 0..<12 {
                            let tags = (0..<3).map { pool[(worker * 7 + step * 3 + $0 * 5) % pool.count] }
                            let created = try await client.send(
                                .post, step % 4 == 3 ? "/v1/cards/\(seed)/comments" : "/v1/cards",
                                json: ["content": "동시에", "background": ["default": "sky-dawn"], "tags": tags, "story": step % 5 == 0],
                                token: token)
                            // The withdrawn account's requests are refused; nothing else may fail.
                            guard created.status == .created else {
                                #expect(created.status.code < 500, "\(created.status)")
                                continue
                            }
                            mine.append(try created.object.id)
                            if step % 3 == 2, let victim = mine.popLast() {
                                let deleted = try await client.send(.delete, "/v1/cards/\(victim)", token: token)
                                #expect(deleted.status.code < 500)
                            }
                        }
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(150))
                    let gone = try await TestDevice.made(5).withdraw(client, token: tokens[5])
                    #expect(gone.status == .noContent)
                }
                try await group.waitForAll()
            }
            #expect(try await database.tagDrift() == (0, 0))
            #expect(try await database.scalar("SELECT count(*)::int FROM tags WHERE usage_count < 0") == 0)
            // The API agrees with the recount.
            let ranked = try await client.tagList("/v1/tags/ranked")
            for item in ranked {
                #expect(try await database.storedUsage(item.name.lowercased()) == item.count)
            }
        }
    }

    @Test("with the production cache on, a change reaches the top ten once the cached ranking expires")
    func rankedCache() async throws {
        // The bound itself (never older than the lifetime, measured from when the read began) is
        // proven with a controlled clock in TagTests; here the cache runs in a real server, whose
        // requests take a machine-dependent time, so only a generous wall-clock bound is checked.
        try await withTestApp(tagRankingCacheLifetime: 0.25) { client, database in
            let tokens = try await database.makeAccounts(1)
            #expect(try await client.tagList("/v1/tags/ranked").isEmpty)  // now cached: empty
            try await client.postTagged(tokens[0], ["fresh"])
            let changed = Date()
            var ranked = try await client.tagList("/v1/tags/ranked")
            while ranked.isEmpty, Date().timeIntervalSince(changed) < 10 {
                try await Task.sleep(for: .milliseconds(20))
                ranked = try await client.tagList("/v1/tags/ranked")
            }
            #expect(ranked == [TagCount("fresh", 1)])
        }
    }
}
