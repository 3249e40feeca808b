import Foundation
import HummingbirdTesting
import SoomCrypto
import Testing

/// What an operator holding the database can and cannot learn (PRIVACY.md, *What an operator can see*).
@Suite("Privacy of what is stored")
struct StoragePrivacyTests {
    @Test("a dump of the database holds no session token, transfer code, signature or client address; keys only as the public key")
    func dumpHoldsNoSecrets() async throws {
        try await withTestApp { client, database in
            let device = TestDevice(key: TestDevice.keys[5])
            let registration = try await device.proof(client, purpose: "register")
            let registered = try await client.send(.post, "/v1/accounts", json: registration)
            let (token, _) = try TestDevice.signedIn(registered)
            let (second, _) = try await device.signIn(client)
            let code = try #require(try await device.issueTransferCode(client, token: token).object["code"] as? String)
            try await client.postCard(token, "저장된 것")
            let signature = try #require(registration["signature"] as? String)

            let dump = try database.dump()
            #expect(dump.contains("저장된 것"), "the dump holds the database's content")
            for secret in [token, second, code, signature, "127.0.0.1"] {
                #expect(!dump.contains(secret), "\(secret.prefix(12))… is in the dump")
            }
            // Only hashes of the tokens: SHA-256, as the sessions table says.
            let hashed = SHA256Digest.hash(token).map { String(format: "%02x", $0) }.joined()
            #expect(dump.contains(hashed))
        }
    }
}
