import Foundation
import HummingbirdTesting
import Testing

/// The periodic cleanup: what has expired goes, what has not stays.
@Suite("Cleanup of expired records against PostgreSQL")
struct CleanupTests {
    @Test("expired transfer codes and Idempotency-Key records are purged; live ones stay")
    func purge() async throws {
        try await withTestApp(backgroundJobs: false) { client, database in
            let tokens = try await database.makeAccounts(2)
            for token in tokens {
                #expect(try await client.send(.post, "/v1/me/transfer-codes", token: token).status == .created)
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
}
