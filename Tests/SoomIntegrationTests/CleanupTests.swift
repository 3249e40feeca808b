import Foundation
import HummingbirdTesting
import SoomApp
import SoomData
import SoomDomain
import Testing

@testable import SoomHTTP

/// The periodic cleanup: what has expired goes, what has not stays.
@Suite("Cleanup of expired records against PostgreSQL")
struct CleanupTests {
    @Test("expired transfer codes and Idempotency-Key records are purged; live ones stay")
    func purge() async throws {
        try await withTestApp(backgroundJobs: false) { client, database in
            let tokens = try await database.makeAccounts(2)
            for (index, token) in tokens.enumerated() {
                #expect(try await TestDevice.made(index).issueTransferCode(client, token: token).status == .created)
                try await client.postCard(token, "키 카드", key: "retry-1")
            }
            #expect(try await database.withIdentityRepository { try await $0.purgeExpired(limit: 100) } == 0)
            #expect(try await database.withCardRepository { try await $0.purgeIdempotencyKeys(limit: 100) } == 0)

            try await database.execute(
                "UPDATE transfer_codes SET expires_at = now() - interval '1 second' WHERE ctid = (SELECT min(ctid) FROM transfer_codes)")
            try await database.execute(
                "UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE ctid = (SELECT min(ctid) FROM idempotency_keys)")
            #expect(try await database.withIdentityRepository { try await $0.purgeExpired(limit: 100) } == 1)
            #expect(try await database.withCardRepository { try await $0.purgeIdempotencyKeys(limit: 100) } == 1)
            #expect(try await database.scalar("SELECT count(*)::int FROM transfer_codes") == 1)
            #expect(try await database.scalar("SELECT count(*)::int FROM idempotency_keys") == 1)
            // The cards themselves stay; only the memory of the key went.
            #expect(try await database.scalar("SELECT count(*)::int FROM cards") == 2)
        }
    }

    @Test("retention: notifications and withdrawal records go after 30 days, unused uploads after 24 hours; the rest stays")
    func retention() async throws {
        try await withTestApp(backgroundJobs: false) { client, database in
            let tokens = try await database.makeAccounts(3)
            let card = try await client.postCard(tokens[0], "공감해 주세요")
            #expect(try await client.send(.put, "/v1/cards/\(card.id)/like", token: tokens[1]).status == .ok)
            #expect(try await client.send(.put, "/v1/cards/\(card.id)/like", token: tokens[2]).status == .ok)
            var images: [String] = []
            for _ in 0..<4 {
                images.append(
                    try #require(
                        try await client.upload(PhotoFixtures.bytes("jpeg-baseline.jpg"), type: "image/jpeg", token: tokens[0]).object["id"]
                            as? String))
            }
            try await client.postCard(tokens[0], "배경", extra: ["background": ["imageId": images[0]]])
            #expect(try await client.send(.patch, "/v1/me", json: ["profileImage": ["imageId": images[1]]], token: tokens[0]).status == .ok)
            #expect(try await TestDevice.made(2).withdraw(client, token: tokens[2]).status == .noContent)
            try await database.execute(
                "INSERT INTO withdrawals (key_fingerprint, reason, withdrawn_at) VALUES (decode(repeat('cd', 32), 'hex'), '', now() - interval '31 days')"
            )

            // Everything old except the one image made yesterday but 23 hours ago.
            try await database.execute(
                "UPDATE notifications SET created_at = now() - interval '31 days' WHERE ctid = (SELECT min(ctid) FROM notifications)")
            try await database.execute("UPDATE images SET created_at = now() - interval '25 hours' WHERE id::text <> \(images[3])")
            try await database.execute("UPDATE images SET created_at = now() - interval '23 hours' WHERE id::text = \(images[3])")
            #expect(try await database.scalar("SELECT count(*)::int FROM notifications") == 1)  // the second like's went with its liker

            let now = Date()
            #expect(
                try await database.withNotificationRepository { try await $0.purge(createdBefore: now - Retention.notifications, limit: 100) } == 1)
            #expect(try await database.withIdentityRepository { try await $0.purgeWithdrawals(before: now - Retention.withdrawals, limit: 100) } == 1)
            #expect(
                try await database.withDatabase {
                    try await PostgresImageStore(database: $0).purgeUnused(createdBefore: now - ImageUploadRules.unusedLifetime, limit: 100)
                } == 1)
            #expect(try await database.scalar("SELECT count(*)::int FROM notifications") == 0)
            #expect(try await database.scalar("SELECT count(*)::int FROM withdrawals") == 1)  // today's
            let left = try await database.rows("SELECT id::text FROM images ORDER BY created_at").map { try $0.decode(String.self) }
            #expect(Set(left) == [images[0], images[1], images[3]])
            #expect(try await client.send(.get, "/v1/images/\(images[2])").status == .notFound)
        }
    }

    @Test("uploads stored before scrubbing are rewritten without their metadata; an unreadable one loses its bytes")
    func legacyPhotos() async throws {
        try await withTestApp(backgroundJobs: false) { client, database in
            let token = try await database.makeAccounts(1)[0]
            let owner = try await client.accountID(token)
            let original = try PhotoFixtures.bytes("jpeg-progressive.jpg")
            let (legacy, broken) = (UUID(), UUID())
            for (id, bytes) in [(legacy, original), (broken, [0xFF, 0xD8, 0xFF, 0xE0, 0, 1, 2])] {
                try await database.execute(
                    """
                    INSERT INTO images (id, owner_id, content_type, byte_count, sha256, bytes, created_at)
                    VALUES (\(id), \(UUID(uuidString: owner)!), 'image/jpeg', \(bytes.count), decode(repeat('00', 32), 'hex'), \(Data(bytes)), now())
                    """)
            }
            #expect(
                String(decoding: Array(try await client.send(.get, "/v1/images/\(legacy)").body.readableBytesView), as: UTF8.self).contains(
                    "SoomSecretMake"))
            let handled = try await database.withDatabase { database in
                try await ScrubLegacyPhotos(store: PostgresImageStore(database: database), digest: OpenSSLContentDigest.sha256Hex)(limit: 10)
            }
            #expect(handled == 2)
            let served = try await client.send(.get, "/v1/images/\(legacy)")
            let text = String(decoding: Array(served.body.readableBytesView), as: UTF8.self)
            for secret in PhotoFixtures.secrets { #expect(!text.contains(secret), "\(secret)") }
            #expect(served.headers[.eTag] == "\"\(OpenSSLContentDigest.sha256Hex(Array(served.body.readableBytesView)))\"")
            #expect(try await database.scalar("SELECT width::int FROM images WHERE id = \(legacy)") == 64)
            #expect(try await client.send(.get, "/v1/images/\(broken)").status == .notFound)
            #expect(
                try await database.withDatabase {
                    try await ScrubLegacyPhotos(store: PostgresImageStore(database: $0), digest: OpenSSLContentDigest.sha256Hex)(limit: 10)
                } == 0)
        }
    }
}
