import Foundation
import HummingbirdTesting
import Testing

@testable import SoomHTTP

@Suite("Cards and comment cards against PostgreSQL")
struct CardTests {
    @Test("a card has the contract's full shape, a Location, and normalised tags")
    func create() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            let response = try await client.send(
                .post, "/v1/cards",
                json: [
                    "content": "  첫 카드\n둘째 줄 ", "font": "serif", "background": ["default": "sea-wave"],
                    "tags": ["#하늘", "Sky", "sky", " 바다 "], "location": ["latitude": 37.5, "longitude": 127.0],
                ],
                token: token)
            #expect(response.status == .created)
            let card = try response.object
            #expect(response.headers[.location] == "/v1/cards/\(card.id)")
            #expect(
                Set(card.keys) == [
                    "id", "content", "font", "background", "tags", "author", "parentId", "parentDeleted", "createdAt",
                    "expiresAt", "likeCount", "commentCount", "viewCount", "likedByMe", "commentedByMe", "isMine", "distanceMeters", "poll",
                    "pinned",
                ])
            #expect(card["poll"] is NSNull && card["pinned"] as? Bool == false)
            #expect(card["content"] as? String == "  첫 카드\n둘째 줄 ")
            #expect(card["font"] as? String == "serif")
            #expect(card["tags"] as? [String] == ["하늘", "Sky", "바다"])
            #expect(card["parentId"] is NSNull && card["expiresAt"] is NSNull && card["distanceMeters"] is NSNull)
            #expect(card["isMine"] as? Bool == true && card["likedByMe"] as? Bool == false)
            #expect((card["background"] as? [String: Any])?["url"] as? String == "/v1/images/defaults/sea-wave")
            #expect(Set(((card["author"] as? [String: Any]) ?? [:]).keys) == ["id", "nickname", "profileImage", "isOperator"])
            #expect((card["author"] as? [String: Any])?["isOperator"] as? Bool == false)
            let read = try await client.send(.get, "/v1/cards/\(card.id)", token: token)
            #expect(read.status == .ok)
            #expect(try read.object["content"] as? String == card["content"] as? String)
            #expect(try await database.scalar("SELECT card_count FROM accounts") == 1)
        }
    }

    @Test("content counts characters as people see them: 500 Hangul syllables fit, 501 do not")
    func contentLength() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            try await client.postCard(token, String(repeating: "숨", count: 500))
            try await client.postCard(token, String(repeating: "👍🏽", count: 500))
            let tooLong = try await client.send(
                .post, "/v1/cards", json: ["content": String(repeating: "숨", count: 501), "background": ["default": "sky-dawn"]], token: token)
            #expect(tooLong.status == .unprocessableContent && tooLong.errorField == "content")
        }
    }

    static var refusals: [(String, [String: Any], Int, String?)] {
        [
            ("empty", ["content": ""], 422, "content"),
            ("whitespace", ["content": " \n\t "], 422, "content"),
            ("control", ["content": "a\u{7}b"], 422, "content"),
            ("font", ["font": "comic"], 422, "font"),
            ("unknown background", ["background": ["default": "nope"]], 422, "background"),
            ("both background keys", ["background": ["default": "sky-dawn", "imageId": "x"]], 400, "background"),
            ("foreign image", ["background": ["imageId": UUID().uuidString]], 422, "background"),
            ("eleven tags", ["tags": (0..<11).map { "t\($0)" }], 422, "tags"),
            ("bad tag", ["tags": ["no spaces"]], 422, "tags"),
            ("long tag", ["tags": [String(repeating: "a", count: 16)]], 422, "tags"),
            ("latitude", ["location": ["latitude": 91, "longitude": 0]], 422, "location"),
            ("location type", ["location": ["latitude": "north", "longitude": 0]], 400, "location.latitude"),
            ("content type", ["content": 5], 400, "content"),
            ("story type", ["story": "yes"], 400, "story"),
        ]
    }

    @Test("every broken rule is a 4xx naming the field, and creates nothing")
    func refusals() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            for (name, change, status, field) in Self.refusals {
                var body: [String: Any] = ["content": "ok", "background": ["default": "sky-dawn"]]
                body.merge(change) { $1 }
                let response = try await client.send(.post, "/v1/cards", json: body, token: token)
                #expect(response.status.code == status, "\(name): \(String(buffer: response.body))")
                #expect(response.errorField == field, "\(name)")
            }
            let tenDuplicates = try await client.send(
                .post, "/v1/cards", json: ["content": "ok", "background": ["default": "sky-dawn"], "tags": (0..<20).map { _ in "#Same" }],
                token: token)
            #expect(tenDuplicates.status == .created)
            #expect(try tenDuplicates.object["tags"] as? [String] == ["Same"])
            #expect(try await database.scalar("SELECT count(*)::int FROM cards") == 1)
        }
    }

    @Test("comment cards: counted on the parent, answerable themselves, and kept when the parent goes")
    func comments() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(2)
            let parent = try await client.postCard(tokens[0], "원글")
            let first = try await client.postCard(tokens[1], "답 1", parent: parent.id)
            #expect(first["parentId"] as? String == parent.id && first["parentDeleted"] as? Bool == false)
            let second = try await client.postCard(tokens[0], "답 2", parent: parent.id)
            let nested = try await client.postCard(tokens[1], "답의 답", parent: first.id)
            #expect(nested["parentId"] as? String == first.id)
            #expect(try await client.send(.get, "/v1/cards/\(parent.id)", token: tokens[1]).object["commentCount"] as? Int == 2)
            let listed = try await client.allPages("/v1/cards/\(parent.id)/comments", token: tokens[0], limit: 1)
            #expect(listed.map(\.id) == [second.id, first.id])
            // Comment cards are not top-level cards.
            #expect(try await client.allPages("/v1/feeds/latest", token: tokens[0]).map(\.id) == [parent.id])
            #expect(try await database.scalar("SELECT card_count FROM accounts ORDER BY card_count DESC LIMIT 1") == 1)

            #expect(try await client.send(.delete, "/v1/cards/\(parent.id)", token: tokens[0]).status == .noContent)
            let orphan = try await client.send(.get, "/v1/cards/\(first.id)", token: tokens[1]).object
            #expect(orphan["parentId"] as? String == parent.id && orphan["parentDeleted"] as? Bool == true)
            // The thread stays readable: its comment cards are still listed under the deleted card.
            let thread = try await client.allPages("/v1/cards/\(parent.id)/comments", token: tokens[0])
            #expect(thread.map(\.id) == [second.id, first.id])
            #expect(thread.allSatisfy { $0["parentDeleted"] as? Bool == true })
            let lateAnswer = try await client.send(
                .post, "/v1/cards/\(parent.id)/comments", json: ["content": "늦은 답", "background": ["default": "sky-dawn"]], token: tokens[1])
            #expect(lateAnswer.status == .notFound)
        }
    }

    @Test("delete: only the author (403 not_owner), then 404; counters follow")
    func delete() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(2)
            let card = try await client.postCard(tokens[0])
            let comment = try await client.postCard(tokens[1], parent: card.id)
            let notOwner = try await client.send(.delete, "/v1/cards/\(card.id)", token: tokens[1])
            #expect(notOwner.status == .forbidden && notOwner.errorCode == "not_owner")
            #expect(try await client.send(.delete, "/v1/cards/\(comment.id)", token: tokens[1]).status == .noContent)
            #expect(try await client.send(.get, "/v1/cards/\(card.id)", token: tokens[0]).object["commentCount"] as? Int == 0)
            #expect(try await client.send(.delete, "/v1/cards/\(card.id)", token: tokens[0]).status == .noContent)
            #expect(try await client.send(.delete, "/v1/cards/\(card.id)", token: tokens[0]).status == .notFound)
            #expect(try await client.send(.get, "/v1/cards/\(card.id)", token: tokens[0]).status == .notFound)
            #expect(try await client.send(.get, "/v1/cards/not-a-uuid", token: tokens[0]).status == .notFound)
            #expect(try await database.scalar("SELECT sum(card_count)::int FROM accounts") == 0)
        }
    }

    @Test("likes are idempotent and exact: 24 people liking at once, twice each, then half unliking at once")
    func concurrentLikes() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(24)
            let card = try await client.postCard(tokens[0])
            let path = "/v1/cards/\(card.id)/like"
            try await withThrowingTaskGroup(of: Void.self) { group in
                for token in tokens + tokens {
                    group.addTask {
                        let response = try await client.send(.put, path, token: token)
                        #expect(response.status == .ok)
                        #expect(try response.object["liked"] as? Bool == true)
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await client.send(.get, "/v1/cards/\(card.id)", token: tokens[0]).object["likeCount"] as? Int == 24)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for token in tokens.prefix(12) + tokens.prefix(12) {
                    group.addTask { _ = try await client.send(.delete, path, token: token) }
                }
                try await group.waitForAll()
            }
            let after = try await client.send(.get, "/v1/cards/\(card.id)", token: tokens[20]).object
            #expect(after["likeCount"] as? Int == 12 && after["likedByMe"] as? Bool == true)
            #expect(try await database.scalar("SELECT count(*)::int FROM likes") == 12)
            let unliked = try await client.send(.delete, path, token: tokens[0]).object
            #expect(unliked["liked"] as? Bool == false && unliked["likeCount"] as? Int == 12)
            #expect(try await client.send(.put, "/v1/cards/\(UUID())/like", token: tokens[0]).status == .notFound)
        }
    }

    @Test("comment counts are exact with 24 people answering at once")
    func concurrentComments() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(24)
            let cardID = try await client.postCard(tokens[0]).id
            try await withThrowingTaskGroup(of: Void.self) { group in
                for token in tokens {
                    group.addTask { try await client.postCard(token, "답", parent: cardID) }
                }
                try await group.waitForAll()
            }
            #expect(try await client.send(.get, "/v1/cards/\(cardID)", token: tokens[0]).object["commentCount"] as? Int == 24)
            #expect(try await database.scalar("SELECT count(*)::int FROM cards WHERE parent_id IS NOT NULL") == 24)
        }
    }

    @Test("Idempotency-Key: a retry returns the first card; parallel retries make one card; another body is 422")
    func idempotency() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(2)
            let first = try await client.postCard(tokens[0], "한 번만", key: "retry-1")
            let again = try await client.postCard(tokens[0], "한 번만", key: "retry-1")
            #expect(first.id == again.id)
            // Another account may use the same key.
            let other = try await client.postCard(tokens[1], "한 번만", key: "retry-1")
            #expect(other.id != first.id)
            let ids = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 { group.addTask { try await client.postCard(tokens[0], "동시에", key: "retry-2").id } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(ids.count == 1)
            let reused = try await client.send(
                .post, "/v1/cards", json: ["content": "다른 내용", "background": ["default": "sky-dawn"]], token: tokens[0],
                headers: [.init("Idempotency-Key")!: "retry-1"])
            #expect(reused.status == .unprocessableContent && reused.errorCode == "idempotency_key_reused")
            let badKey = try await client.send(
                .post, "/v1/cards", json: ["content": "x", "background": ["default": "sky-dawn"]], token: tokens[0],
                headers: [.init("Idempotency-Key")!: String(repeating: "k", count: 65)])
            #expect(badKey.status == .unprocessableContent && badKey.errorField == "Idempotency-Key")
            #expect(try await database.scalar("SELECT count(*)::int FROM cards") == 3)
            // A post that creates nothing gives its key back: the corrected retry is a new request, not a reuse.
            let missingParent = try await client.send(
                .post, "/v1/cards/\(UUID())/comments", json: ["content": "없는 글에", "background": ["default": "sky-dawn"]], token: tokens[0],
                headers: [.init("Idempotency-Key")!: "retry-3"])
            #expect(missingParent.status == .notFound)
            #expect(try await database.scalar("SELECT count(*)::int FROM idempotency_keys WHERE key = 'retry-3'") == 0)
            let corrected = try await client.postCard(tokens[0], "고쳐서 다시", key: "retry-3")
            #expect(try await client.postCard(tokens[0], "고쳐서 다시", key: "retry-3").id == corrected.id)
            // A key older than 24 hours is forgotten.
            try await database.execute("UPDATE idempotency_keys SET created_at = now() - interval '25 hours'")
            let fresh = try await client.postCard(tokens[0], "한 번만", key: "retry-1")
            #expect(fresh.id != first.id)
        }
    }

    @Test("stories expire after 24 hours: gone everywhere at once, counters corrected by the sweep")
    func stories() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(1)
            let parent = try await client.postCard(tokens[0], "원글")
            let story = try await client.postCard(tokens[0], "24시간", extra: ["story": true])
            let storyComment = try await client.postCard(tokens[0], "잠깐", parent: parent.id, extra: ["story": true])
            let expiresAt = try #require(story["expiresAt"] as? String)
            let created = try #require(story["createdAt"] as? String)
            let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
            #expect(try Date(expiresAt, strategy: style).timeIntervalSince(try Date(created, strategy: style)) == 24 * 3600)

            try await database.execute("UPDATE cards SET expires_at = now() - interval '1 second' WHERE expires_at IS NOT NULL")
            #expect(try await client.send(.get, "/v1/cards/\(story.id)", token: tokens[0]).status == .notFound)
            #expect(try await client.send(.get, "/v1/cards/\(storyComment.id)", token: tokens[0]).status == .notFound)
            #expect(try await client.allPages("/v1/feeds/latest", token: tokens[0]).map(\.id) == [parent.id])
            #expect(try await client.allPages("/v1/cards/\(parent.id)/comments", token: tokens[0]).isEmpty)

            // Swept from outside this app, as another instance would: its kept parent shows the
            // corrected count within the feed cache's lifetime.
            let swept = try await database.withCardRepository { try await $0.sweepExpiredStories(limit: 100) }
            #expect(swept == 2)
            try await eventually("the parent's comment count is corrected", timeout: .seconds(2)) {
                try await client.send(.get, "/v1/cards/\(parent.id)", token: tokens[0]).object["commentCount"] as? Int == 0
            }
            #expect(try await database.scalar("SELECT card_count FROM accounts") == 1)
        }
    }

    @Test("withdrawal corrects the counts on other people's cards in the same transaction")
    func withdrawalCorrectsCounts() async throws {
        try await withTestApp { client, database in
            let (leaver, _) = try await TestDevice.a.register(client)
            let stayer = try await database.makeAccounts(1)[0]
            let card = try await client.postCard(stayer)
            _ = try await client.send(.put, "/v1/cards/\(card.id)/like", token: leaver)
            try await client.postCard(leaver, "안녕", parent: card.id)
            let own = try await client.postCard(leaver, "내 카드")
            let answer = try await client.postCard(stayer, "답", parent: own.id)
            #expect(try await TestDevice.a.withdraw(client, token: leaver).status == .noContent)
            let after = try await client.send(.get, "/v1/cards/\(card.id)", token: stayer).object
            #expect(after["likeCount"] as? Int == 0 && after["commentCount"] as? Int == 0)
            #expect(try await client.send(.get, "/v1/cards/\(own.id)", token: stayer).status == .notFound)
            #expect(try await client.send(.get, "/v1/cards/\(answer.id)", token: stayer).object["parentDeleted"] as? Bool == true)
            #expect(try await database.scalar("SELECT count(*)::int FROM likes") == 0)
        }
    }

    @Test("createdAt is the same string in the response that created a card or an account and in every later read")
    func createdAtIsOneValue() async throws {
        try await withTestApp { client, database in
            let (token, account) = try await TestDevice.a.register(client)
            let me = try await client.send(.get, "/v1/me", token: token).object
            #expect(me["createdAt"] as? String == account["createdAt"] as? String)
            for index in 0..<40 {
                let created = try await client.postCard(token, "시간 \(index)")
                let read = try await client.send(.get, "/v1/cards/\(created.id)", token: token).object
                #expect(read["createdAt"] as? String == created["createdAt"] as? String, "card \(index)")
            }
        }
    }

    @Test("a stamp reads back as the same millisecond after PostgreSQL's microseconds, for every millisecond")
    func stampRoundTrip() {
        for millis in stride(from: Int64(1_764_000_000_000), to: 1_764_000_002_000, by: 1) {
            let stamp = Date(timeIntervalSince1970: Double(millis) / 1000 + 0.000_3).stamp
            // What the driver stores: whole microseconds since 2000, truncated or rounded.
            let since2000 = stamp.timeIntervalSince1970 - 946_684_800
            for micros in [(since2000 * 1_000_000).rounded(.towardZero), (since2000 * 1_000_000).rounded()] {
                let stored = Date(timeIntervalSince1970: micros / 1_000_000 + 946_684_800)
                #expect(JSON.timestamp(stored) == JSON.timestamp(stamp), "\(millis)")
            }
        }
    }
}
