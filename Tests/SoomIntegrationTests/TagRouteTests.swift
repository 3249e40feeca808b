import Foundation
import HummingbirdTesting
import Testing

/// The *Tags* routes and the tag feed against PostgreSQL: search, one tag, favourites, paging, bad input.
@Suite("Tag routes against PostgreSQL")
struct TagRouteTests {
    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    @Test("search: prefix ignoring case, Latin and Hangul, only tags in use, highest count first, limit")
    func search() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(1)
            for (name, count) in [("Seoul", 3), ("seaside", 1), ("SEA", 2), ("하늘", 2), ("하늘색", 4), ("바다", 1)] {
                for _ in 0..<count { try await client.postTagged(tokens[0], [name]) }
            }
            let unusedCard = try await client.postTagged(tokens[0], ["unused"])
            #expect(try await client.tagList("/v1/tags/search?q=unu") == [TagCount("unused", 1)])
            #expect(try await client.send(.delete, "/v1/cards/\(unusedCard)", token: tokens[0]).status == .noContent)

            #expect(try await client.tagList("/v1/tags/search?q=se").map(\.description) == ["Seoul=3", "SEA=2", "seaside=1"])
            #expect(try await client.tagList("/v1/tags/search?q=SEA").map(\.description) == ["SEA=2", "seaside=1"])
            #expect(try await client.tagList("/v1/tags/search?q=%23Se&limit=1").map(\.description) == ["Seoul=3"])
            #expect(try await client.tagList("/v1/tags/search?q=\(Self.encoded("하"))").map(\.description) == ["하늘색=4", "하늘=2"])
            #expect(try await client.tagList("/v1/tags/search?q=\(Self.encoded("#하늘색"))", token: tokens[0]).map(\.description) == ["하늘색=4"])
            #expect(try await client.tagList("/v1/tags/search?q=unu").isEmpty)
            #expect(try await client.tagList("/v1/tags/search?q=zzz").isEmpty)
            #expect(try await client.tagList("/v1/tags/search?q=s&limit=20").count == 3)
        }
    }

    @Test("search of prefixes of one to six characters among 3,000 tags, Latin and Hangul, equals a plain query")
    func searchManyMatches() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(1)
            // Latin and Hangul groups sharing their first one, two and three characters, counts
            // 0…6 (0: not in use, never found), and a big three-character group ("pab…") in which
            // the longer prefix "pabz" is rare.
            try await database.execute(
                """
                INSERT INTO tags (key, name, usage_count)
                SELECT lower(k), k, n % 7 FROM (
                    SELECT 'P' || chr(97 + n % 5) || chr(97 + n % 3) || n AS k, n FROM generate_series(1, 1500) n
                    UNION ALL SELECT 'pabz' || n, n FROM generate_series(1, 4) n
                    UNION ALL SELECT '하늘' || chr(44032 + n % 9) || n, n FROM generate_series(1, 1200) n
                    UNION ALL SELECT '하' || n, n FROM generate_series(1, 300) n) t
                """)
            try await client.postTagged(tokens[0], ["Pz"])
            for prefix in ["p", "pa", "pab", "pabz", "pabz3", "pac12", "pz", "q", "하", "하늘", "하늘가", "하늘가1", "하1", "하12", "하늘나10"] {
                for limit in [1, 7, 20] {
                    let rows = try await database.rows(
                        """
                        SELECT name, usage_count FROM tags WHERE starts_with(key, \(prefix)) AND usage_count > 0
                        ORDER BY usage_count DESC, key LIMIT \(limit)
                        """)
                    let expected = try rows.map { row in
                        let (name, count) = try row.decode((String, Int).self)
                        return "\(name)=\(count)"
                    }
                    let found = try await client.tagList("/v1/tags/search?q=\(Self.encoded(prefix))&limit=\(limit)").map(\.description)
                    #expect(found == expected, "q=\(prefix) limit=\(limit)")
                }
            }
            #expect(try await client.tagList("/v1/tags/search?q=p&limit=20").count == 20)
            #expect(try await client.tagList("/v1/tags/search?q=pabz&limit=20").count == 4)
        }
    }

    @Test("GET /v1/tags/{name}: any valid name, used or not; invalid 422; isFavorite is the caller's; a bad token is 401")
    func show() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(2)
            try await client.postTagged(tokens[0], ["하늘"])
            for path in ["하늘", "#하늘", " 하늘 "] {
                let response = try await client.send(.get, "/v1/tags/\(Self.encoded(path))")
                #expect(response.status == .ok)
                let object = try response.object
                #expect(object["name"] as? String == "하늘" && object["usageCount"] as? Int == 1 && object["isFavorite"] as? Bool == false)
                #expect(object.keys.sorted() == ["isFavorite", "name", "usageCount"])
            }
            let unused = try await client.send(.get, "/v1/tags/NeverUsed", token: tokens[1]).object
            #expect(unused["name"] as? String == "NeverUsed" && unused["usageCount"] as? Int == 0)
            #expect(try await client.send(.put, "/v1/tags/\(Self.encoded("하늘"))/favorite", token: tokens[1]).status == .ok)
            #expect(try await client.send(.get, "/v1/tags/\(Self.encoded("하늘"))", token: tokens[1]).object["isFavorite"] as? Bool == true)
            #expect(try await client.send(.get, "/v1/tags/\(Self.encoded("하늘"))", token: tokens[0]).object["isFavorite"] as? Bool == false)
            #expect(try await client.send(.get, "/v1/tags/\(Self.encoded("하늘"))").object["isFavorite"] as? Bool == false)
            for bad in ["a%20b", "%F0%9F%8C%8A", String(repeating: "a", count: 16), "%23%23x", "%23", "a.b"] {
                let response = try await client.send(.get, "/v1/tags/\(bad)")
                #expect(response.status.code == 422 && response.errorCode == "validation_failed" && response.errorField == "name", "\(bad)")
            }
            for path in ["/v1/tags/x", "/v1/tags/ranked", "/v1/tags/search?q=x"] {
                let response = try await client.send(.get, path, token: "not-a-session")
                #expect(response.status == .unauthorized && response.headers[.wwwAuthenticate] == "Bearer", "\(path)")
            }
        }
    }

    @Test("favourites: idempotent, listed with counts, at most nine, removed on withdrawal")
    func favourites() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(2)
            try await client.postTagged(tokens[1], ["Sky"])
            #expect(try await client.send(.put, "/v1/tags/sky/favorite").status == .unauthorized)
            #expect(try await client.send(.get, "/v1/me/favorite-tags").status == .unauthorized)
            for _ in 0..<2 {
                let response = try await client.send(.put, "/v1/tags/SKY/favorite", token: tokens[0])
                let favorite = try response.object["favorite"] as? Bool
                #expect(response.status == .ok && favorite == true)
            }
            _ = try await client.send(.put, "/v1/tags/\(Self.encoded("바다"))/favorite", token: tokens[0])
            #expect(try await client.tagList("/v1/me/favorite-tags", token: tokens[0]).map(\.description) == ["Sky=1", "바다=0"])
            for _ in 0..<2 {
                let response = try await client.send(.delete, "/v1/tags/%23sky/favorite", token: tokens[0])
                let favorite = try response.object["favorite"] as? Bool
                #expect(response.status == .ok && favorite == false)
            }
            #expect(try await client.tagList("/v1/me/favorite-tags", token: tokens[0]).map(\.description) == ["바다=0"])
            for index in 0..<8 { #expect(try await client.send(.put, "/v1/tags/f\(index)/favorite", token: tokens[0]).status == .ok) }
            let tenth = try await client.send(.put, "/v1/tags/tenth/favorite", token: tokens[0])
            #expect(tenth.status.code == 422 && tenth.errorCode == "favorite_limit")
            #expect(try await client.send(.put, "/v1/tags/F0/favorite", token: tokens[0]).status == .ok)
            #expect(try await client.tagList("/v1/me/favorite-tags", token: tokens[0]).count == 9)
            let bad = try await client.send(.put, "/v1/tags/a%20b/favorite", token: tokens[0])
            #expect(bad.status.code == 422 && bad.errorField == "name")
            #expect(try await TestDevice.made(0).withdraw(client, token: tokens[0]).status == .noContent)
            #expect(try await database.scalar("SELECT count(*)::int FROM favorite_tags") == 0)
        }
    }

    @Test("twenty parallel favourites of different tags leave exactly nine")
    func favouriteLimitUnderConcurrency() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(1)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<20 {
                    group.addTask { try await client.send(.put, "/v1/tags/race\(index)/favorite", token: tokens[0]).status.code }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 9)
            #expect(statuses.filter { $0 == 422 }.count == 11)
            #expect(try await database.scalar("SELECT count(*)::int FROM favorite_tags") == 9)
        }
    }

    @Test("tag feed: top-level and comment cards, newest first, full Card shape, no skips or repeats while others post")
    func feed() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(3)
            var expected: [String] = []
            for index in 0..<7 {
                let parent: String? = index % 3 == 2 ? expected.first : nil
                expected.append(try await client.postTagged(tokens[index % 3], ["#Feed", "other\(index)"], parent: parent))
            }
            try await client.postTagged(tokens[0], ["unrelated"])
            let expiredStory = try await client.postTagged(tokens[1], ["feed"], story: true)
            try await database.execute("UPDATE cards SET expires_at = now() WHERE id = \(UUID(uuidString: expiredStory)!)")
            var seen: [String] = []
            var cursor: String?
            var round = 0
            repeat {
                let uri = "/v1/tags/FEED/cards?limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try await client.send(.get, uri, token: tokens[0])
                try #require(page.status == .ok, "\(String(buffer: page.body))")
                let object = try page.object
                let items = try #require(object["items"] as? [[String: Any]])
                for item in items {
                    #expect((item["tags"] as? [String])?.first == "Feed")
                    #expect(item["likedByMe"] is Bool && item["isMine"] is Bool && item["author"] is [String: Any] && item.keys.contains("parentId"))
                }
                seen += items.map(\.id)
                cursor = object["nextCursor"] as? String
                try await client.postTagged(tokens[round % 3], ["feed"])
                round += 1
            } while cursor != nil
            #expect(seen == Array(expected.reversed()))
            // Percent-encoded Hangul works as a feed name too.
            let hangul = try await client.postTagged(tokens[2], ["숨"])
            #expect(try await client.allPages("/v1/tags/\(Self.encoded("#숨"))/cards", token: tokens[0]).map(\.id) == [hangul])
            #expect(try await client.allPages("/v1/tags/never/cards", token: tokens[0]).isEmpty)
        }
    }

    @Test("malformed input is a 4xx JSON error and changes nothing")
    func malformed() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(1)
            try await client.postTagged(tokens[0], ["keep"])
            try await client.postTagged(tokens[0], ["keep"])
            let page = try await client.send(.get, "/v1/tags/keep/cards?limit=1", token: tokens[0]).object
            let cursor = try #require(page["nextCursor"] as? String)
            let before = try await database.scalar("SELECT (sum(usage_count) * 1000 + count(*))::int FROM tags")
            let favouritesBefore = try await database.scalar("SELECT count(*)::int FROM favorite_tags")
            for (method, uri, status, code, field) in [
                ("GET", "/v1/tags/search", 400, "invalid_request", "q"),
                ("GET", "/v1/tags/search?q=", 422, "validation_failed", "q"),
                ("GET", "/v1/tags/search?q=%23", 422, "validation_failed", "q"),
                ("GET", "/v1/tags/search?q=a%20b", 422, "validation_failed", "q"),
                ("GET", "/v1/tags/search?q=a&limit=0", 422, "validation_failed", "limit"),
                ("GET", "/v1/tags/search?q=a&limit=21", 422, "validation_failed", "limit"),
                ("GET", "/v1/tags/search?q=a&limit=ten", 400, "invalid_request", "limit"),
                ("GET", "/v1/tags/a!/cards", 422, "validation_failed", "name"),
                ("GET", "/v1/tags/keep/cards?cursor=garbage", 400, "invalid_cursor", "cursor"),
                ("GET", "/v1/tags/other/cards?cursor=\(cursor)", 400, "invalid_cursor", "cursor"),
                ("GET", "/v1/feeds/latest?cursor=\(cursor)", 400, "invalid_cursor", "cursor"),
                ("GET", "/v1/tags/keep/cards?limit=51", 422, "validation_failed", "limit"),
                ("PUT", "/v1/tags/\(String(repeating: "x", count: 16))/favorite", 422, "validation_failed", "name"),
                ("DELETE", "/v1/tags/%23/favorite", 422, "validation_failed", "name"),
            ] {
                let response = try await client.send(.init(rawValue: method)!, uri, token: tokens[0])
                #expect(response.status.code == status, "\(method) \(uri)")
                #expect(response.errorCode == code && response.errorField == field, "\(method) \(uri): \(String(buffer: response.body))")
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            }
            #expect(try await client.send(.get, "/v1/tags/keep/cards?cursor=\(cursor)", token: tokens[0]).status == .ok)
            #expect(try await client.send(.get, "/v1/tags/keep/cards").status == .unauthorized)
            #expect(try await client.send(.post, "/v1/tags/ranked").status == .methodNotAllowed)
            // A card with an invalid tag is refused whole: no card, no count.
            let refused = try await client.send(
                .post, "/v1/cards", json: ["content": "x", "background": ["default": "sky-dawn"], "tags": ["keep", "bad tag"]], token: tokens[0])
            #expect(refused.status.code == 422 && refused.errorField == "tags")
            #expect(try await database.scalar("SELECT (sum(usage_count) * 1000 + count(*))::int FROM tags") == before)
            #expect(try await database.scalar("SELECT count(*)::int FROM favorite_tags") == favouritesBefore)
            #expect(try await database.tagDrift() == (0, 0))
        }
    }
}
