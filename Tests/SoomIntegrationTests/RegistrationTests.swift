import Foundation
import HummingbirdTesting
import SoomCrypto
import Testing

@Suite("POST /v1/accounts against PostgreSQL")
struct RegistrationTests {
    @Test("registers with PSS and a chosen nickname, returning Me and a session")
    func registersWithPSS() async throws {
        try await withTestApp { client, database in
            let (token, account) = try await TestDevice.a.register(client, nickname: "  고요한 고래 ")
            #expect(account["nickname"] as? String == "고요한 고래")
            #expect(account["bio"] as? String == "")
            #expect(account["profileImage"] is NSNull)
            #expect(account["restrictedUntil"] is NSNull)
            #expect(account["cardCount"] as? Int == 0 && account["followerCount"] as? Int == 0 && account["followingCount"] as? Int == 0)
            let id = try #require(account["id"] as? String)
            #expect(UUID(uuidString: id) != nil)
            #expect(token.count == 43)
            // The token is stored only as its hash.
            #expect(try await database.scalar("SELECT count(*)::int FROM sessions WHERE token_hash = \(Data(SHA256Digest.hash(token)))") == 1)
            let me = try await client.send(.get, "/v1/me", token: token)
            #expect(me.status == .ok)
            #expect(try me.object["id"] as? String == id)
            #expect(try (me.object["createdAt"] as? String)?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
        }
    }

    @Test("registers with PKCS#1 v1.5 and a PKCS#1 PEM key; without a nickname one is suggested")
    func registersWithPKCS1() async throws {
        try await withTestApp { client, _ in
            let device = TestDevice(key: TestDevice.keys[1], algorithm: "rsa-pkcs1v15-sha256", usePKCS1PEM: true)
            let (_, account) = try await device.register(client)
            let nickname = try #require(account["nickname"] as? String)
            #expect(!nickname.isEmpty && nickname.count <= 8)
            // The same key in SPKI form is the same device.
            let spki = TestDevice(key: TestDevice.keys[1])
            let again = try await client.send(.post, "/v1/accounts", json: try await spki.proof(client, purpose: "register"))
            #expect(again.status == .conflict)
            #expect(again.errorCode == "device_already_registered")
        }
    }

    @Test("a taken nickname is 409 nickname_taken, ignoring case, and nothing is created")
    func nicknameTaken() async throws {
        try await withTestApp { client, database in
            try await TestDevice.a.register(client, nickname: "Moon")
            let before = try await database.snapshot()
            var body = try await TestDevice.b.proof(client, purpose: "register")
            body["nickname"] = "mOON"
            let snapshotWithChallenge = try await database.snapshot()
            let response = try await client.send(.post, "/v1/accounts", json: body)
            #expect(response.status == .conflict)
            #expect(response.errorCode == "nickname_taken")
            #expect(try await database.snapshot() == snapshotWithChallenge)
            #expect(before["accounts"] == 1)
            // The refused request did not burn the challenge: the same proof works with another nickname.
            body["nickname"] = "Sun"
            #expect(try await client.send(.post, "/v1/accounts", json: body).status == .created)
        }
    }

    @Test("nickname rules are 422 validation_failed on nickname", arguments: ["", "   ", "아홉글자닉네임이다", "admin", "운영자", "😀", "a/b"])
    func invalidNicknames(nickname: String) async throws {
        try await withTestApp { client, database in
            var body = try await TestDevice.a.proof(client, purpose: "register")
            body["nickname"] = nickname
            let before = try await database.snapshot()
            let response = try await client.send(.post, "/v1/accounts", json: body)
            #expect(response.status == .unprocessableContent)
            #expect(response.errorCode == "validation_failed")
            #expect(response.errorField == "nickname")
            #expect(try await database.snapshot() == before)
        }
    }

    @Test("a built-in profile image is accepted; an unknown one or a foreign upload is 422 on profileImage")
    func profileImages() async throws {
        try await withTestApp { client, _ in
            var body = try await TestDevice.a.proof(client, purpose: "register")
            body["profileImage"] = ["default": "nope"]
            var response = try await client.send(.post, "/v1/accounts", json: body)
            #expect(response.status == .unprocessableContent && response.errorField == "profileImage")
            body["profileImage"] = ["imageId": UUID().uuidString]
            response = try await client.send(.post, "/v1/accounts", json: body)
            #expect(response.status == .unprocessableContent && response.errorField == "profileImage")
            body["profileImage"] = ["default": "sea-calm", "imageId": "x"]
            response = try await client.send(.post, "/v1/accounts", json: body)
            #expect(response.status == .badRequest && response.errorField == "profileImage")
            body["profileImage"] = ["default": "sea-calm"]
            response = try await client.send(.post, "/v1/accounts", json: body)
            #expect(response.status == .created)
            let image = try #require((try response.object["account"] as? [String: Any])?["profileImage"] as? [String: Any])
            #expect(image["kind"] as? String == "default")
            #expect(image["name"] as? String == "sea-calm")
            #expect(image["url"] as? String == "/v1/images/defaults/sea-calm")
        }
    }

    @Test("keys that are not RSA 2048–4096 are 422 invalid_public_key and change nothing")
    func invalidKeys() async throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("SoomCryptoTests/Fixtures")
        let pems =
            try ["rsa1024_spki.pem", "ec_p256_spki.pem", "ed25519_spki.pem", "rsa2048_private.pem"].map {
                try String(contentsOf: fixtures.appendingPathComponent($0), encoding: .utf8)
            } + ["garbage", "", String(repeating: "A", count: 9000)]
        try await withTestApp { client, database in
            for pem in pems {
                var body = try await TestDevice.a.proof(client, purpose: "register")
                body["publicKey"] = pem
                let before = try await database.snapshot()
                let response = try await client.send(.post, "/v1/accounts", json: body)
                #expect(response.status == .unprocessableContent, "\(pem.prefix(40))")
                #expect(response.errorCode == "invalid_public_key")
                #expect(try await database.snapshot() == before)
            }
        }
    }

    @Test("an unknown algorithm is 422 validation_failed on algorithm")
    func unknownAlgorithm() async throws {
        try await withTestApp { client, _ in
            var body = try await TestDevice.a.proof(client, purpose: "register")
            body["algorithm"] = "rsa-pss-sha1"
            let response = try await client.send(.post, "/v1/accounts", json: body)
            #expect(response.status == .unprocessableContent)
            #expect(response.errorField == "algorithm")
        }
    }

    @Test("a withdrawn key may not register again for 7 days: 403 rejoin_not_allowed with rejoinAvailableAt")
    func rejoinRule() async throws {
        try await withTestApp { client, database in
            let (token, _) = try await TestDevice.a.register(client)
            #expect(try await TestDevice.a.withdraw(client, token: token, reason: "bye").status == .noContent)
            let response = try await client.send(.post, "/v1/accounts", json: try await TestDevice.a.proof(client, purpose: "register"))
            #expect(response.status == .forbidden)
            #expect(response.errorCode == "rejoin_not_allowed")
            let error = try #require(try response.object["error"] as? [String: Any])
            let rejoinAt = try #require(error["rejoinAvailableAt"] as? String)
            let date = try #require(try? Date(rejoinAt, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            #expect(abs(date.timeIntervalSinceNow - 7 * 24 * 3600) < 120)
            // Eight days later the same key is welcome again.
            try await database.execute("UPDATE withdrawals SET withdrawn_at = now() - interval '8 days'")
            try await TestDevice.a.register(client)
        }
    }
}
