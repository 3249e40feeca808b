import Foundation
import HummingbirdTesting
import Logging
import PostgresNIO
import SoomData
import SoomDomain
import Testing

/// Impersonation by nickname and tag (issue 43, finding 2): look-alikes of a taken or reserved
/// name are taken or reserved too, and invisible characters split no tag.
@Suite("Confusable nicknames and tags against PostgreSQL")
struct ConfusableNicknameTests {
    @Test("with Alice taken, every look-alike is refused: case, full width, Cyrillic, invisible characters; blanks too")
    func lookAlikes() async throws {
        try await withTestApp { client, database in
            _ = try await TestDevice.a.register(client, nickname: "Alice")
            let before = try await database.snapshot()
            for (nickname, status, code) in [
                ("ALICE", 409, "nickname_taken"), ("Ａｌｉｃｅ", 409, "nickname_taken"), ("A1ice", 409, "nickname_taken"),
                ("\u{0410}lice", 422, "validation_failed"), ("Alice\u{034F}", 422, "validation_failed"), ("Alice\u{FE0F}", 422, "validation_failed"),
                ("Alice\u{E0100}", 422, "validation_failed"), ("\u{3164}", 422, "validation_failed"), ("\u{115F}", 422, "validation_failed"),
                ("\u{FFA0}", 422, "validation_failed"), ("ａｄｍｉｎ", 422, "validation_failed"), ("운영자\u{FE0F}", 422, "validation_failed"),
                ("운영\u{034F}자", 422, "validation_failed"), ("관리자\u{FE00}", 422, "validation_failed"), ("숨\u{FE0F}", 422, "validation_failed"),
                ("\u{0430}dmin", 422, "validation_failed"),
            ] {
                var body = try await TestDevice.b.proof(client, purpose: "register")
                body["nickname"] = nickname
                let response = try await client.send(.post, "/v1/accounts", json: body)
                #expect(Int(response.status.code) == status && response.errorCode == code, "\(nickname.debugDescription): \(response.status)")
                let check = try await client.send(.post, "/v1/nicknames/validation", json: ["nickname": nickname]).object
                #expect(check["available"] as? Bool == false, "\(nickname.debugDescription) is available")
            }
            #expect(try await database.snapshot() == before)
            // Renaming into a look-alike is refused the same way.
            let other = try await TestDevice.c.register(client, nickname: "Bob")
            #expect(try await client.send(.patch, "/v1/me", json: ["nickname": "ＡＬＩＣＥ"], token: other.token).errorCode == "nickname_taken")
            #expect(try await client.send(.patch, "/v1/me", json: ["nickname": "Kim민수"], token: other.token).status == .ok)
        }
    }

    @Test("tags: cafe, cafe + U+034F, cafe + U+FE0F and cafe + U+3164 are one tag; a blank tag is refused")
    func tagsDoNotSplit() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            for spelling in ["cafe", "cafe\u{034F}", "cafe\u{FE0F}", "cafe\u{3164}", "ＣＡＦＥ"] { try await client.postTagged(token, [spelling]) }
            #expect(try await client.usage("cafe") == 5)
            #expect(try await database.scalar("SELECT count(*)::int FROM tags") == 1)
            let blank = try await client.send(
                .post, "/v1/cards", json: ["content": "빈 태그", "background": ["default": "sea-calm"], "tags": ["\u{3164}"]], token: token)
            #expect(blank.status == .unprocessableContent && blank.errorField == "tags")
            #expect(try await client.send(.get, "/v1/tags/%E3%85%A4").status == .unprocessableContent)
        }
    }

    @Test("the migrator brings older keys to the skeleton: the older of two look-alikes keeps the key, both keep their names")
    func rekey() async throws {
        let logger = Logger(label: "soom-test")
        try await withEmptyDatabase(logger: logger) { configuration in
            _ = try await DatabaseMigration.run(configuration, logger: logger)
            let database = TestDatabase(configuration: configuration)
            for (index, name) in ["barn", "bam", "Alice", "Moon"].enumerated() {
                try await database.execute(
                    """
                    INSERT INTO accounts (id, key_fingerprint, public_key, nickname, nickname_key, nickname_key_version, created_at)
                    VALUES (gen_random_uuid(), \(Data(repeating: UInt8(index), count: 32)), '\\x00', \(name), \(name.lowercased()), 1, now() + \(index) * interval '1 second')
                    """)
            }
            _ = try await DatabaseMigration.run(configuration, logger: logger)
            let rows = try await database.rows("SELECT nickname, nickname_key, nickname_key_version FROM accounts ORDER BY created_at")
            let keys = try rows.map { try $0.decode((String, String, Int16).self) }
            #expect(keys.allSatisfy { $0.2 == 2 })
            #expect(keys[0].1 == Nickname.key(for: "barn"))
            #expect(keys[1].1.hasPrefix(Nickname.key(for: "bam") + "#"))
            #expect(keys[2].1 == Nickname.key(for: "Alice") && keys[3].1 == Nickname.key(for: "Moon"))
            // Idempotent: a second run changes nothing.
            _ = try await DatabaseMigration.run(configuration, logger: logger)
            let again = try await database.rows("SELECT nickname_key FROM accounts ORDER BY created_at").map { try $0.decode(String.self) }
            #expect(again == keys.map(\.1))
        }
    }
}
