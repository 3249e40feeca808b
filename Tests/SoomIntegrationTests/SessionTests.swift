import Foundation
import HummingbirdTesting
import SoomApp
import SoomCrypto
import SoomData
import SoomDomain
import Testing

@testable import SoomHTTP

@Suite("Sessions and challenges against PostgreSQL")
struct SessionTests {
    @Test("sign in with PSS or PKCS#1 v1.5; the token works until sign-out")
    func signInAndOut() async throws {
        try await withTestApp { client, _ in
            let (_, registered) = try await TestDevice.a.register(client)
            var pkcs1 = TestDevice.a
            pkcs1.algorithm = "rsa-pkcs1v15-sha256"
            let (token, account) = try await pkcs1.signIn(client)
            #expect(account["id"] as? String == registered["id"] as? String)
            #expect(try await client.send(.get, "/v1/me", token: token).status == .ok)
            #expect(try await client.send(.delete, "/v1/sessions/current", token: token).status == .noContent)
            let after = try await client.send(.get, "/v1/me", token: token)
            #expect(after.status == .unauthorized)
            #expect(after.errorCode == "unauthorized")
            #expect(after.headers[.wwwAuthenticate] == "Bearer")
        }
    }

    @Test("a valid signature by an unregistered key is 404 account_not_found")
    func unknownKey() async throws {
        try await withTestApp { client, _ in
            let response = try await client.send(.post, "/v1/sessions", json: try await TestDevice.c.proof(client, purpose: "login"))
            #expect(response.status == .notFound)
            #expect(response.errorCode == "account_not_found")
        }
    }

    @Test("bad proofs are all 401 invalid_signature and open no session")
    func badProofs() async throws {
        try await withTestApp { client, database in
            try await TestDevice.a.register(client)
            let sessionsBefore = try await database.scalar("SELECT count(*)::int FROM sessions")
            var cases: [(String, [String: Any])] = []

            // Signed for another purpose.
            cases.append(("wrong purpose", try await TestDevice.a.proof(client, purpose: "register")))
            // Signed by another key.
            var otherKey = try await TestDevice.b.proof(client, purpose: "login")
            otherKey["publicKey"] = TestDevice.a.publicKeyPEM
            cases.append(("other key", otherKey))
            // Tampered nonce: the signature covers another nonce.
            let (id, nonce) = try await TestDevice.a.challenge(client)
            cases.append(
                (
                    "tampered",
                    [
                        "publicKey": TestDevice.a.publicKeyPEM, "algorithm": "rsa-pss-sha256", "challengeId": id,
                        "signature": TestDevice.a.sign("login", nonce: nonce + "x"),
                    ]
                ))
            // PSS signature declared as PKCS#1.
            var swapped = try await TestDevice.a.proof(client, purpose: "login")
            swapped["algorithm"] = "rsa-pkcs1v15-sha256"
            cases.append(("padding swapped", swapped))
            // Unknown, malformed and empty.
            var unknown = try await TestDevice.a.proof(client, purpose: "login")
            unknown["challengeId"] = UUID().uuidString
            cases.append(("unknown challenge", unknown))
            var notAnID = try await TestDevice.a.proof(client, purpose: "login")
            notAnID["challengeId"] = "'; DROP TABLE accounts; --"
            cases.append(("malformed challenge id", notAnID))
            var empty = try await TestDevice.a.proof(client, purpose: "login")
            empty["signature"] = ""
            cases.append(("empty signature", empty))
            var garbage = try await TestDevice.a.proof(client, purpose: "login")
            garbage["signature"] = "!!!not base64!!!"
            cases.append(("garbage signature", garbage))

            for (name, body) in cases {
                let response = try await client.send(.post, "/v1/sessions", json: body)
                #expect(response.status == .unauthorized, "\(name)")
                #expect(response.errorCode == "invalid_signature", "\(name)")
                #expect(response.headers[.wwwAuthenticate] == "Bearer", "\(name)")
            }
            #expect(try await database.scalar("SELECT count(*)::int FROM sessions") == sessionsBefore)
        }
    }

    @Test("an expired challenge is 401 invalid_signature, however well signed")
    func expiredChallenge() async throws {
        try await withTestApp { client, database in
            try await TestDevice.a.register(client)
            // Sealed with the deployment's own secret, so only the expiry is wrong.
            let secret = try await database.withIdentityRepository { try await $0.challengeSecret() }
            let seal = ChallengeSeal(secret: secret, crypto: OpenSSLIdentityCrypto())
            let expired = seal.seal(nonce: SecureRandom.bytes(32), expiresAt: Date().addingTimeInterval(-1))
            let before = try await database.snapshot()
            let body: [String: Any] = [
                "publicKey": TestDevice.a.publicKeyPEM, "algorithm": "rsa-pss-sha256", "challengeId": expired.id,
                "signature": TestDevice.a.sign("login", nonce: expired.nonce),
            ]
            let response = try await client.send(.post, "/v1/sessions", json: body)
            #expect(response.status == .unauthorized)
            #expect(response.errorCode == "invalid_signature")
            #expect(try await database.snapshot() == before)
        }
    }

    @Test("a challenge ID sealed with another secret, or altered, is 401 invalid_signature")
    func forgedChallenge() async throws {
        try await withTestApp { client, database in
            try await TestDevice.a.register(client)
            let forged = ChallengeSeal(secret: SecureRandom.bytes(32), crypto: OpenSSLIdentityCrypto())
                .seal(nonce: SecureRandom.bytes(32), expiresAt: Date().addingTimeInterval(60))
            let (genuineID, genuineNonce) = try await TestDevice.a.challenge(client)
            // Move the expiry by flipping one bit of it (byte 40 of the sealed bytes).
            var bytes = try #require(Base64URL.decode(genuineID))
            bytes[40] ^= 0x01
            let altered = Base64URL.encode(bytes)
            for (name, id, nonce) in [("other secret", forged.id, forged.nonce), ("altered expiry", altered, genuineNonce)] {
                let body: [String: Any] = [
                    "publicKey": TestDevice.a.publicKeyPEM, "algorithm": "rsa-pss-sha256", "challengeId": id,
                    "signature": TestDevice.a.sign("login", nonce: nonce),
                ]
                let response = try await client.send(.post, "/v1/sessions", json: body)
                #expect(response.status == .unauthorized, "\(name)")
                #expect(response.errorCode == "invalid_signature", "\(name)")
            }
            // The genuine one still works: the refusals spent nothing.
            let body: [String: Any] = [
                "publicKey": TestDevice.a.publicKeyPEM, "algorithm": "rsa-pss-sha256", "challengeId": genuineID,
                "signature": TestDevice.a.sign("login", nonce: genuineNonce),
            ]
            #expect(try await client.send(.post, "/v1/sessions", json: body).status == .created)
        }
    }

    @Test("issuing challenges writes nothing; spending one records its nonce until the purge after expiry")
    func challengesCostNoWrite() async throws {
        try await withTestApp { client, database in
            try await TestDevice.a.register(client)
            let before = try await database.snapshot()
            for _ in 0..<10 { _ = try await TestDevice.a.challenge(client) }
            #expect(try await database.snapshot() == before)
            #expect(try await database.scalar("SELECT count(*)::int FROM server_secrets") == 1)

            let body = try await TestDevice.a.proof(client, purpose: "login")
            #expect(try await client.send(.post, "/v1/sessions", json: body).status == .created)
            #expect(try await database.scalar("SELECT count(*)::int FROM spent_challenges") == 2)  // register + login

            // The purge forgets spent challenges and sessions only once they have expired.
            #expect(try await database.withIdentityRepository { try await $0.purgeExpired(limit: 100) } == 0)
            try await database.execute("UPDATE spent_challenges SET expires_at = now() - interval '1 second'")
            try await database.execute(
                "UPDATE sessions SET expires_at = now() - interval '1 second' WHERE ctid = (SELECT min(ctid) FROM sessions)")
            #expect(try await database.withIdentityRepository { try await $0.purgeExpired(limit: 100) } == 3)
            #expect(try await database.scalar("SELECT count(*)::int FROM spent_challenges") == 0)
            #expect(try await database.scalar("SELECT count(*)::int FROM sessions") == 1)
        }
    }

    @Test("a challenge is single use: 16 parallel sign-ins with one signed challenge yield exactly one session")
    func parallelReplay() async throws {
        try await withTestApp { client, database in
            try await TestDevice.a.register(client)
            let body = try await TestDevice.a.proof(client, purpose: "login")
            let sessionsBefore = try await database.scalar("SELECT count(*)::int FROM sessions")
            let data = try JSONSerialization.data(withJSONObject: body)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        let body = try JSONSerialization.jsonObject(with: data)
                        return try await client.send(.post, "/v1/sessions", json: body).status.code
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 201 }.count == 1)
            #expect(statuses.filter { $0 == 401 }.count == 15)
            #expect(try await database.scalar("SELECT count(*)::int FROM sessions") == sessionsBefore + 1)
            #expect(try await database.scalar("SELECT count(*)::int FROM spent_challenges") == 2)  // register + this login
        }
    }

    @Test("16 parallel registrations with one signed challenge create exactly one account")
    func parallelRegistration() async throws {
        try await withTestApp { client, database in
            let data = try JSONSerialization.data(withJSONObject: try await TestDevice.a.proof(client, purpose: "register"))
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        try await client.send(.post, "/v1/accounts", json: try JSONSerialization.jsonObject(with: data)).status.code
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 201 }.count == 1)
            #expect(statuses.allSatisfy { $0 == 201 || $0 == 401 || $0 == 409 })
            #expect(try await database.scalar("SELECT count(*)::int FROM accounts") == 1)
        }
    }

    @Test(
        "expired, unknown and malformed tokens are 401 with WWW-Authenticate",
        arguments: ["", "Bearer", "Bearer short", "Basic abc", "Bearer " + String(repeating: "A", count: 43)])
    func badTokens(header: String) async throws {
        try await withTestApp { client, _ in
            let response = try await client.send(.get, "/v1/me", headers: header.isEmpty ? [:] : [.authorization: header])
            #expect(response.status == .unauthorized)
            #expect(response.errorCode == "unauthorized")
            #expect(response.headers[.wwwAuthenticate] == "Bearer")
        }
    }

    @Test("a session older than 24 hours stops working")
    func expiredSession() async throws {
        try await withTestApp { client, database in
            let (token, _) = try await TestDevice.a.register(client)
            try await database.execute("UPDATE sessions SET expires_at = now() - interval '1 second'")
            #expect(try await client.send(.get, "/v1/me", token: token).status == .unauthorized)
        }
    }
}
