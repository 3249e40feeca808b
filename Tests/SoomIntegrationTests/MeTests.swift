import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("/v1/me and transfers against PostgreSQL")
struct MeTests {
    @Test("PATCH /v1/me changes only the fields sent; null removes the picture")
    func patch() async throws {
        try await withTestApp { client, _ in
            let (token, _) = try await TestDevice.a.register(client, nickname: "첫이름")
            var response = try await client.send(
                .patch, "/v1/me", json: ["nickname": "새 이름", "bio": "줄\n바꿈", "profileImage": ["default": "forest-moss"]], token: token)
            #expect(response.status == .ok)
            var me = try response.object
            #expect(me["nickname"] as? String == "새 이름")
            #expect(me["bio"] as? String == "줄\n바꿈")
            #expect((me["profileImage"] as? [String: Any])?["name"] as? String == "forest-moss")

            response = try await client.send(.patch, "/v1/me", json: ["bio": "only bio"], token: token)
            me = try response.object
            #expect(me["nickname"] as? String == "새 이름")
            #expect((me["profileImage"] as? [String: Any])?["name"] as? String == "forest-moss")

            response = try await client.send(.patch, "/v1/me", raw: #"{"profileImage": null}"#, token: token)
            me = try response.object
            #expect(me["profileImage"] is NSNull)
            #expect(me["bio"] as? String == "only bio")

            // Reading it back gives the same.
            let read = try await client.send(.get, "/v1/me", token: token).object
            #expect(read["bio"] as? String == "only bio" && read["profileImage"] is NSNull)
        }
    }

    @Test("PATCH /v1/me refuses a taken nickname (409) and rule breaks (422) without changing anything")
    func patchRefusals() async throws {
        try await withTestApp { client, _ in
            try await TestDevice.a.register(client, nickname: "Taken")
            let (token, _) = try await TestDevice.b.register(client, nickname: "Mine")
            var response = try await client.send(.patch, "/v1/me", json: ["nickname": "taken", "bio": "x"], token: token)
            #expect(response.status == .conflict && response.errorCode == "nickname_taken")
            response = try await client.send(.patch, "/v1/me", json: ["bio": String(repeating: "가", count: 151)], token: token)
            #expect(response.status == .unprocessableContent && response.errorField == "bio")
            response = try await client.send(.patch, "/v1/me", json: ["bio": "nul\u{0}byte"], token: token)
            #expect(response.status == .unprocessableContent && response.errorField == "bio")
            response = try await client.send(.patch, "/v1/me", json: ["bio": 3], token: token)
            #expect(response.status == .badRequest && response.errorField == "bio")
            let me = try await client.send(.get, "/v1/me", token: token).object
            #expect(me["nickname"] as? String == "Mine" && me["bio"] as? String == "")
            // Exactly 150 characters is fine.
            response = try await client.send(.patch, "/v1/me", json: ["bio": String(repeating: "가", count: 150)], token: token)
            #expect(response.status == .ok)
        }
    }

    @Test("DELETE /v1/me deletes everything but the reason, the time and the fingerprint")
    func withdraw() async throws {
        try await withTestApp { client, database in
            let (token, _) = try await TestDevice.a.register(client)
            let (second, _) = try await TestDevice.a.signIn(client)
            #expect(try await TestDevice.a.issueTransferCode(client, token: token).status == .created)
            var response = try await TestDevice.a.withdraw(client, token: token, reason: String(repeating: "x", count: 501))
            #expect(response.status == .unprocessableContent && response.errorField == "reason")
            response = try await TestDevice.a.withdraw(client, token: token, reason: "떠나요")
            #expect(response.status == .noContent)
            #expect(try await client.send(.get, "/v1/me", token: token).status == .unauthorized)
            #expect(try await client.send(.get, "/v1/me", token: second).status == .unauthorized)
            let counts = try await database.snapshot()
            #expect(counts["accounts"] == 0 && counts["sessions"] == 0 && counts["transfer_codes"] == 0)
            #expect(try await database.scalar("SELECT count(*)::int FROM withdrawals WHERE reason = '떠나요'") == 1)
            // Signing in with the withdrawn key finds no account.
            let login = try await client.send(.post, "/v1/sessions", json: try await TestDevice.a.proof(client, purpose: "login"))
            #expect(login.status == .notFound && login.errorCode == "account_not_found")
        }
    }

    @Test("DELETE /v1/me: no reason is an empty one; no body, or no signature, is 400 and withdraws nothing")
    func withdrawWithoutReason() async throws {
        try await withTestApp { client, database in
            let (token, _) = try await TestDevice.a.register(client)
            var response = try await client.send(.delete, "/v1/me", token: token)
            #expect(response.status == .badRequest && response.errorCode == "invalid_request")
            response = try await client.send(.delete, "/v1/me", json: ["reason": "no proof"], token: token)
            #expect(response.status == .badRequest && response.errorCode == "invalid_request")
            #expect(try await database.scalar("SELECT count(*)::int FROM accounts") == 1)
            var body = try await TestDevice.a.accountProof(client, purpose: "withdraw")
            body["reason"] = nil
            #expect(try await client.send(.delete, "/v1/me", json: body, token: token).status == .noContent)
            #expect(try await database.scalar("SELECT count(*)::int FROM withdrawals WHERE reason = ''") == 1)
        }
    }

    @Test("a stolen session token alone can neither issue a transfer code nor withdraw (401 invalid_signature, nothing changes)")
    func stolenToken() async throws {
        try await withTestApp { client, database in
            let (token, _) = try await TestDevice.a.register(client)
            let thief = TestDevice.b
            for (path, method, purpose) in [("/v1/me/transfer-codes", HTTPRequest.Method.post, "transfer-code"), ("/v1/me", .delete, "withdraw")] {
                // The thief's key; the owner's signature for another purpose; a public key added to the body.
                var forged = try await thief.accountProof(client, purpose: purpose)
                var response = try await client.send(method, path, json: forged, token: token)
                #expect(response.status == .unauthorized && response.errorCode == "invalid_signature", "\(path)")
                forged = try await TestDevice.a.accountProof(client, purpose: "login")
                response = try await client.send(method, path, json: forged, token: token)
                #expect(response.status == .unauthorized && response.errorCode == "invalid_signature", "\(path)")
                forged = try await thief.proof(client, purpose: purpose)
                response = try await client.send(method, path, json: forged, token: token)
                #expect(response.status == .unauthorized && response.errorCode == "invalid_signature", "\(path)")
                response = try await client.send(method, path, json: ["algorithm": "", "challengeId": "", "signature": ""], token: token)
                #expect(response.status == .unprocessableContent && response.errorField == "algorithm", "\(path)")
            }
            #expect(try await database.scalar("SELECT count(*)::int FROM transfer_codes") == 0)
            #expect(try await database.scalar("SELECT count(*)::int FROM accounts") == 1)
            // A proof is single use.
            let proof = try await TestDevice.a.accountProof(client, purpose: "transfer-code")
            #expect(try await client.send(.post, "/v1/me/transfer-codes", json: proof, token: token).status == .created)
            let again = try await client.send(.post, "/v1/me/transfer-codes", json: proof, token: token)
            #expect(again.status == .unauthorized && again.errorCode == "invalid_signature")
        }
    }

    @Test("a transfer code moves the account to a new key; the old key and all its sessions stop working")
    func transfer() async throws {
        try await withTestApp { client, database in
            let (oldToken, account) = try await TestDevice.a.register(client, nickname: "이사가요")
            let (otherOldToken, _) = try await TestDevice.a.signIn(client)
            let issued = try await TestDevice.a.issueTransferCode(client, token: oldToken)
            #expect(issued.status == .created)
            let code = try #require(try issued.object["code"] as? String)
            #expect(code.wholeMatch(of: /[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}/) != nil)

            var body = try await TestDevice.b.proof(client, purpose: "transfer")
            body["code"] = code.lowercased().replacingOccurrences(of: "-", with: " ")
            let moved = try await client.send(.post, "/v1/accounts/transfer", json: body)
            #expect(moved.status == .created)
            let (newToken, movedAccount) = try TestDevice.signedIn(moved)
            #expect(movedAccount["id"] as? String == account["id"] as? String)
            #expect(movedAccount["nickname"] as? String == "이사가요")

            #expect(try await client.send(.get, "/v1/me", token: oldToken).status == .unauthorized)
            #expect(try await client.send(.get, "/v1/me", token: otherOldToken).status == .unauthorized)
            #expect(try await client.send(.get, "/v1/me", token: newToken).status == .ok)
            let oldLogin = try await client.send(.post, "/v1/sessions", json: try await TestDevice.a.proof(client, purpose: "login"))
            #expect(oldLogin.status == .notFound)
            _ = try await TestDevice.b.signIn(client)

            // The code was single use.
            var again = try await TestDevice.c.proof(client, purpose: "transfer")
            again["code"] = code
            let reused = try await client.send(.post, "/v1/accounts/transfer", json: again)
            #expect(reused.status == .unauthorized && reused.errorCode == "invalid_transfer_code")
            #expect(try await database.scalar("SELECT count(*)::int FROM accounts") == 1)
        }
    }

    @Test("transfer refusals: wrong purpose, bad code, a key that has its own account, an expired code")
    func transferRefusals() async throws {
        try await withTestApp { client, database in
            let (token, _) = try await TestDevice.a.register(client)
            try await TestDevice.b.register(client)
            let code = try #require(try await TestDevice.a.issueTransferCode(client, token: token).object["code"] as? String)

            var body = try await TestDevice.c.proof(client, purpose: "login")
            body["code"] = code
            var response = try await client.send(.post, "/v1/accounts/transfer", json: body)
            #expect(response.status == .unauthorized && response.errorCode == "invalid_signature")

            body = try await TestDevice.c.proof(client, purpose: "transfer")
            body["code"] = "NOT-A-CODE"
            response = try await client.send(.post, "/v1/accounts/transfer", json: body)
            #expect(response.status == .unauthorized && response.errorCode == "invalid_transfer_code")

            body = try await TestDevice.b.proof(client, purpose: "transfer")
            body["code"] = code
            response = try await client.send(.post, "/v1/accounts/transfer", json: body)
            #expect(response.status == .conflict && response.errorCode == "device_already_registered")
            // Refused transfers left the code usable: it is still there.
            #expect(try await database.scalar("SELECT count(*)::int FROM transfer_codes") == 1)

            try await database.execute("UPDATE transfer_codes SET expires_at = now() - interval '1 second'")
            body = try await TestDevice.c.proof(client, purpose: "transfer")
            body["code"] = code
            response = try await client.send(.post, "/v1/accounts/transfer", json: body)
            #expect(response.status == .unauthorized && response.errorCode == "invalid_transfer_code")
            #expect(try await client.send(.get, "/v1/me", token: token).status == .ok)
        }
    }

    @Test("a new transfer code replaces the previous one")
    func newCodeReplacesOld() async throws {
        try await withTestApp { client, database in
            let (token, _) = try await TestDevice.a.register(client)
            let first = try #require(try await TestDevice.a.issueTransferCode(client, token: token).object["code"] as? String)
            #expect(try await TestDevice.a.issueTransferCode(client, token: token).status == .created)
            #expect(try await database.scalar("SELECT count(*)::int FROM transfer_codes") == 1)
            var body = try await TestDevice.b.proof(client, purpose: "transfer")
            body["code"] = first
            #expect(try await client.send(.post, "/v1/accounts/transfer", json: body).errorCode == "invalid_transfer_code")
        }
    }
}
