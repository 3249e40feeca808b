import Foundation
import HTTPTypes
import HummingbirdTesting
import SoomDomain
import Testing

/// What operators change with `soom admin` (notices, client versions, maintenance, refused words),
/// as clients see it: through `PostgresOperators`, the functions the commands call, behind the
/// servers' backs, reaching every running instance within five seconds.
@Suite("Operators' notices, versions, maintenance and words against PostgreSQL")
struct OperatorTests {
    @Test("notices: newest first, keyset paged, no session needed; removed ones go")
    func notices() async throws {
        try await withTestApp { client, database in
            #expect(try await client.send(.get, "/v1/notices").object["items"] as? [Any] != nil)
            var posted: [Notice] = []
            for (index, kind) in [Notice.Kind.notice, .maintenance, .news].enumerated() {
                posted.append(
                    try await database.withOperators {
                        try await $0.addNotice(
                            kind: kind, title: "제목 \(index)", body: "본문 \(index)", url: index == 2 ? "https://soom.example/n" : nil)
                    })
            }
            let items = try await client.allPages("/v1/notices", token: "", limit: 2)
            #expect(items.map(\.id) == posted.reversed().map { $0.id.uuidString.lowercased() })
            let newest = try #require(items.first)
            #expect(newest["kind"] as? String == "news" && newest["title"] as? String == "제목 2" && newest["body"] as? String == "본문 2")
            #expect(newest["url"] as? String == "https://soom.example/n" && items[1]["url"] is NSNull)
            #expect((newest["createdAt"] as? String)?.hasSuffix("Z") == true)
            #expect(try await database.withOperators { try await $0.removeNotice(id: posted[0].id) })
            #expect(try await database.withOperators { try await $0.removeNotice(id: posted[0].id) } == false)
            #expect(try await client.allPages("/v1/notices", token: "").count == 2)
            let bad = try await client.send(.get, "/v1/notices?cursor=nope")
            #expect(bad.status == .badRequest && bad.errorCode == "invalid_cursor")
        }
    }

    @Test("client versions: ok until set; then below minimum update_required, below latest update_available; bad input refused")
    func clientVersions() async throws {
        try await withTestApp { client, database in
            var body = try await client.send(.get, "/v1/client-versions/android?version=0.0.1").object
            #expect(body["status"] as? String == "ok" && body["latest"] as? String == "0.0.0" && body["minimum"] as? String == "0.0.0")
            try await database.withOperators {
                try await $0.setClientVersions(
                    ClientVersionPolicy(latest: SemanticVersion("1.10.0")!, minimum: SemanticVersion("1.2.0")!), for: .android)
            }
            try await eventually("the new versions reach the server") {
                try await client.send(.get, "/v1/client-versions/android?version=1.9.9").object["status"] as? String == "update_available"
            }
            for (version, status) in [("1.1.99", "update_required"), ("1.2.0", "update_available"), ("1.10.0", "ok"), ("2.0.0", "ok")] {
                body = try await client.send(.get, "/v1/client-versions/android?version=\(version)").object
                #expect(body["status"] as? String == status, "\(version)")
                #expect(body["platform"] as? String == "android" && body["latest"] as? String == "1.10.0" && body["minimum"] as? String == "1.2.0")
            }
            // Another platform is untouched.
            #expect(try await client.send(.get, "/v1/client-versions/ios?version=0.0.0").object["status"] as? String == "ok")
            #expect(try await client.send(.get, "/v1/client-versions/windows?version=1.0.0").status == .notFound)
            for version in ["1.2", "v1.2.3", "1.2.3-beta", "1..3", "1.2.3.4", "-1.2.3", "1234567890.0.0", "%20"] {
                let response = try await client.send(.get, "/v1/client-versions/ios?version=\(version)")
                #expect(response.status == .unprocessableContent && response.errorField == "version", "\(version)")
            }
            let missing = try await client.send(.get, "/v1/client-versions/ios")
            #expect(missing.status == .badRequest && missing.errorField == "version")
        }
    }

    @Test("maintenance reaches every instance within 5 s: writes 503 with Retry-After and until, reads and sign-in work, /readyz ready")
    func maintenance() async throws {
        try await withTwoTestApps(sessionCacheLifetime: 10) { one, two, database in
            let (token, _) = try await TestDevice.a.register(one)
            let card = try await one.postCard(token, "점검 전")
            let until = Date().addingTimeInterval(600)
            try await database.withOperators { try await $0.setMaintenance(until: until) }
            for client in [one, two] {
                try await eventually("maintenance reaches the instance", timeout: .seconds(5)) {
                    try await client.send(.post, "/v1/cards", json: ["content": "x", "background": ["default": "sky-dawn"]], token: token)
                        .status == .serviceUnavailable
                }
                let refused = try await client.send(.put, "/v1/cards/\(card.id)/like", token: token)
                #expect(refused.status == .serviceUnavailable && refused.errorCode == "maintenance")
                let retryAfter = try #require(refused.headers[.retryAfter].flatMap { Int($0) })
                #expect((590...601).contains(retryAfter))
                let error = try #require(try refused.object["error"] as? [String: Any])
                let shown = try #require(error["until"] as? String)
                let date = try #require(try? Date(shown, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
                #expect(abs(date.timeIntervalSince(until)) < 0.01)
                // Unauthenticated writes too, before their body is read.
                #expect(try await client.send(.post, "/v1/accounts", json: [:]).errorCode == "maintenance")
                // Reads, signing in and out, and the nickname check keep working.
                #expect(try await client.send(.get, "/v1/cards/\(card.id)", token: token).status == .ok)
                #expect(try await client.send(.get, "/v1/feeds/latest", token: token).status == .ok)
                let (second, _) = try await TestDevice.a.signIn(client)
                #expect(try await client.send(.delete, "/v1/sessions/current", token: second).status == .noContent)
                #expect(try await client.send(.post, "/v1/nicknames/validation", json: ["nickname": "점검중"]).status == .ok)
                #expect(try await client.send(.get, "/readyz").status == .ok)
            }
            #expect(try await database.scalar("SELECT like_count FROM cards") == 0)
            try await database.withOperators { try await $0.setMaintenance(until: nil) }
            for client in [one, two] {
                try await eventually("the end of maintenance reaches the instance", timeout: .seconds(5)) {
                    try await client.send(.put, "/v1/cards/\(card.id)/like", token: token).status == .ok
                }
            }
            // A maintenance whose time has passed refuses nothing.
            try await database.withOperators { try await $0.setMaintenance(until: Date().addingTimeInterval(-1)) }
            try await Task.sleep(for: .seconds(2.5))
            #expect(try await one.send(.delete, "/v1/cards/\(card.id)/like", token: token).status == .ok)
        }
    }

    @Test("refused words: nicknames and new tags that contain one are 422, however spelled; operators extend and empty the list")
    func refusedWords() async throws {
        try await withTestApp { client, database in
            for nickname in ["ㅅ ㅂ", "ㅅ.ㅂ", "ㅅ-ㅂ", "ＦＵＣＫ", "f.u.c.k", "병신아", "Shit_"] {
                let body = try await client.send(.post, "/v1/nicknames/validation", json: ["nickname": nickname]).object
                #expect(body["available"] as? Bool == false && body["reason"] as? String == "not_allowed", "\(nickname)")
            }
            #expect(try await client.send(.post, "/v1/nicknames/validation", json: ["nickname": "시바견"]).object["available"] as? Bool == true)
            var response = try await client.send(
                .post, "/v1/accounts", json: try await TestDevice.a.proof(client, purpose: "register").merging(["nickname": "ｆｕｃｋ"]) { $1 })
            #expect(response.status == .unprocessableContent && response.errorField == "nickname")
            #expect(try await database.snapshot()["accounts"] == 0)
            let (token, _) = try await TestDevice.a.register(client, nickname: "고요")
            response = try await client.send(.patch, "/v1/me", json: ["nickname": "개.새.끼"], token: token)
            #expect(response.status == .unprocessableContent && response.errorField == "nickname")
            response = try await client.send(
                .post, "/v1/cards", json: ["content": "본문은 거르지 않는다: 시발", "background": ["default": "sky-dawn"], "tags": ["좋은날", "씨발"]],
                token: token)
            #expect(response.status == .unprocessableContent && response.errorField == "tags")
            #expect(try await database.scalar("SELECT count(*)::int FROM cards") == 0)
            #expect(try await database.scalar("SELECT count(*)::int FROM tags WHERE usage_count > 0") == 0)
            // Card text is not filtered.
            try await client.postCard(token, "시발 이건 본문", extra: ["tags": ["좋은날"]])
            response = try await client.send(.put, "/v1/tags/SHIT/favorite", token: token)
            #expect(response.status == .unprocessableContent && response.errorField == "name")

            // The operator adds a word and takes a default one out: both reach the server.
            #expect(try await database.withOperators { try await $0.addRefusedWord("고래밥") })
            #expect(try await database.withOperators { try await $0.addRefusedWord("고 래 밥") } == false)
            #expect(try await database.withOperators { try await $0.removeRefusedWord("SHIT") } == ["shit"])
            // Both changes (two transactions, which a reading of the list may fall between).
            try await eventually("the list's changes reach the server") {
                let added = try await client.send(.post, "/v1/nicknames/validation", json: ["nickname": "고래.밥"]).object["reason"] as? String
                let removed = try await client.send(.post, "/v1/nicknames/validation", json: ["nickname": "shit"]).object["reason"] as? String
                return added == "not_allowed" && removed != "not_allowed"
            }
            #expect(try await client.send(.put, "/v1/tags/SHIT/favorite", token: token).status == .ok)
            // Emptied, the list refuses nothing.
            try await database.withOperators { operators in
                for word in try await operators.refusedWords() { _ = try await operators.removeRefusedWord(word) }
            }
            try await eventually("the empty list reaches the server") {
                try await client.send(.post, "/v1/nicknames/validation", json: ["nickname": "ㅅㅂ"]).object["available"] as? Bool == true
            }
        }
    }

    @Test("a key withdrawn while restricted may not register again until the restriction ends, even after seven days")
    func restrictionOutlivesWithdrawal() async throws {
        try await withTestApp { client, database in
            let (token, _) = try await TestDevice.a.register(client)
            try await database.execute("UPDATE accounts SET restricted_until = now() + interval '20 days'")
            #expect(try await TestDevice.a.withdraw(client, token: token, reason: "도망").status == .noContent)
            try await database.execute("UPDATE withdrawals SET withdrawn_at = now() - interval '8 days'")
            var response = try await client.send(.post, "/v1/accounts", json: try await TestDevice.a.proof(client, purpose: "register"))
            #expect(response.status == .forbidden && response.errorCode == "rejoin_not_allowed")
            let error = try #require(try response.object["error"] as? [String: Any])
            let rejoinAt = try #require((error["rejoinAvailableAt"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
            #expect(abs(rejoinAt.timeIntervalSinceNow - 20 * 86_400) < 120)
            // The record outlives the 30-day retention while the restriction runs.
            try await database.execute("UPDATE withdrawals SET withdrawn_at = now() - interval '40 days'")
            let purged = try await database.withIdentityRepository {
                try await $0.purgeWithdrawals(before: Date().addingTimeInterval(-30 * 86_400), limit: 100)
            }
            #expect(purged == 0)
            response = try await client.send(.post, "/v1/accounts", json: try await TestDevice.a.proof(client, purpose: "register"))
            #expect(response.status == .forbidden)
            // Once it has ended, the key is welcome, and the record goes with the next purge.
            try await database.execute("UPDATE withdrawals SET restricted_until = now() - interval '1 second'")
            let (again, _) = try await TestDevice.a.register(client)
            #expect(try await client.send(.get, "/v1/me", token: again).object["restrictedUntil"] is NSNull)
            #expect(
                try await database.withIdentityRepository {
                    try await $0.purgeWithdrawals(before: Date().addingTimeInterval(-30 * 86_400), limit: 100)
                } == 1)
        }
    }
}
