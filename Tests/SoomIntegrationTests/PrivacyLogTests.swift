import Foundation
import HTTPTypes
import HummingbirdTesting
import SoomCrypto
import Synchronization
import Testing

/// No log line at any level, `trace` included, carries a token, signature, public key,
/// fingerprint, client address, coordinate or image metadata.
@Suite("Privacy of the log")
struct PrivacyLogTests {
    @Test("a busy scenario at trace: nothing in any log line identifies anyone")
    func traceScenario() async throws {
        CapturedLogs.install()
        let before = CapturedLogs.lines.count
        let found = Mutex<[String]>([])
        try await withTestApp(logLevel: .trace) { client, database in
            let device = TestDevice(key: TestDevice.keys[4])
            let registration = try await device.proof(client, purpose: "register")
            let registered = try await client.send(.post, "/v1/accounts", json: registration)
            #expect(registered.status == .created)
            let (token, account) = try TestDevice.signedIn(registered)
            let (second, _) = try await device.signIn(client)
            let other = try await database.makeAccounts(1)[0]

            let card = try await client.postCard(
                token, "여기서", extra: ["location": ["latitude": 37.5678912, "longitude": 126.9781234], "tags": ["비밀"]], key: "k-1")
            let id = try #require(card["id"] as? String)
            #expect(try await client.send(.get, "/v1/feeds/nearby?latitude=37.5612345&longitude=126.9912345&radiusKm=5", token: other).status == .ok)
            let photo = try await client.upload(try PhotoFixtures.bytes("jpeg-baseline.jpg"), type: "image/jpeg", token: token)
            #expect(photo.status == .created)
            let imageID = try #require(try photo.object["id"] as? String)
            #expect(try await client.send(.get, "/v1/images/\(imageID)").status == .ok)
            #expect(try await client.send(.patch, "/v1/me", json: ["profileImage": ["imageId": imageID]], token: token).status == .ok)
            #expect(try await client.send(.put, "/v1/cards/\(id)/like", token: other).status == .ok)
            try await client.postCard(other, "댓글", parent: id)
            #expect(try await client.send(.put, "/v1/users/\(try #require(account["id"] as? String))/follow", token: other).status == .ok)
            #expect(try await client.send(.get, "/v1/notifications", token: token).status == .ok)
            #expect(try await client.send(.get, "/v1/me", token: "not-a-real-token-\(UUID())").status == .unauthorized)
            let transferProof = try await device.accountProof(client, purpose: "transfer-code")
            let transfer = try await client.send(.post, "/v1/me/transfer-codes", json: transferProof, token: token)
            #expect(transfer.status == .created)
            let code = try #require(try transfer.object["code"] as? String)
            #expect(try await client.send(.delete, "/v1/sessions/current", token: second).status == .noContent)
            var withdrawal = try await device.accountProof(client, purpose: "withdraw")
            withdrawal["reason"] = "떠나요"
            #expect(try await client.send(.delete, "/v1/me", json: withdrawal, token: token).status == .noContent)

            let publicKeyBody = device.key.publicKeyPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            let der = try #require(Data(base64Encoded: publicKeyBody))
            let fingerprint = SHA256Digest.hash(Array(der))
            let signature = try #require(registration["signature"] as? String)
            let accountSignatures = [try #require(transferProof["signature"] as? String), try #require(withdrawal["signature"] as? String)]
            found.withLock {
                $0 +=
                    accountSignatures + [
                        token, second, code, signature, String(publicKeyBody.prefix(64)),
                        String(publicKeyBody.suffix(64)), fingerprint.map { String(format: "%02x", $0) }.joined(),
                        Data(fingerprint).base64EncodedString(),
                        "37.5678", "126.9781", "37.5612", "126.9912", "37.56789", "126.97812",
                    ]
            }
        }
        let secrets = PhotoFixtures.secrets + found.withLock { $0 }
        let lines = Array(CapturedLogs.lines.dropFirst(before))
        // The scenario really was logged at trace: requests, the database driver, mutations.
        #expect(lines.count > 100)
        #expect(lines.contains { $0.contains("\"level\":\"trace\"") })
        #expect(lines.contains { $0.contains("reactor mutations") })
        for line in lines {
            for secret in secrets where line.contains(secret) {
                Issue.record("a log line carries \(secret.prefix(12))…: \(line.prefix(400))")
            }
            // The client's address: no line of a request's carries one (the server's and the
            // database's own addresses may appear in start-up lines).
            if line.contains("hb.request.id"), line.contains("127.0.0.1") || line.contains("::1") {
                Issue.record("a log line carries an address: \(line.prefix(400))")
            }
        }
    }
}
