import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import PostgresNIO
import Testing

@testable import SoomData

/// The contract: a request the server cannot finish within its deadline (10 s; 2 s here) is
/// `503 timeout` and has no effect — its statements are ended by PostgreSQL and its transaction
/// rolled back, also when it was waiting for a lock another connection held.
@Suite("Request deadline against PostgreSQL")
struct DeadlineTests {
    @Test("a write stuck behind another connection's lock is 503 timeout within the deadline, and nothing of it is written")
    func lockHeldElsewhere() async throws {
        try await withTestApp(requestDeadline: .seconds(2)) { client, database in
            let tokens = try await database.makeAccounts(2)
            // Setup and the check after are not what is tested: with the whole suite running on two
            // cores, even `GET /v1/me` has missed this test's 2 s deadline once, so they are retried.
            let mine = try await Self.unhurried { try await client.send(.get, "/v1/me", token: tokens[0]) }
            let others = try await Self.unhurried { try await client.send(.get, "/v1/me", token: tokens[1]) }
            let me = try #require(UUID(uuidString: try mine.object.id))
            let other = try others.object.id
            let logger = Logger(label: "soom-test-lock")
            try await TestPostgres.withConnection(database.configuration, logger: logger) { holder in
                try await holder.query("BEGIN", logger: logger)
                try await holder.query("SELECT 1 FROM accounts WHERE id = \(me) FOR UPDATE", logger: logger)
                // One statement (the profile update) and one transaction (a follow, which locks both accounts).
                for (method, path, body) in [
                    (HTTPRequest.Method.patch, "/v1/me", ["bio": "늦은 소개"] as [String: Any]), (.put, "/v1/users/\(other)/follow", [:]),
                ] {
                    let started = ContinuousClock.now
                    let response = try await client.send(method, path, json: body, token: tokens[0])
                    let waited = ContinuousClock.now - started
                    #expect(response.status == .serviceUnavailable && response.errorCode == "timeout", "\(path): \(response.status)")
                    #expect(response.headers[.retryAfter] != nil)
                    // The deadline is 2 s; without it the request would wait for the lock for ever.
                    // (4 s was missed by 80 ms once, with the whole suite running at once.) And the
                    // request gets its whole deadline: the lock wait is not cut short before it.
                    #expect(waited < .seconds(6), "\(path) answered after \(waited)")
                    #expect(waited >= .milliseconds(1_850), "\(path) gave up after \(waited), before its 2 s deadline")
                }
                try await holder.query("ROLLBACK", logger: logger)
            }
            // The lock is gone: had either request gone on in the database, it would show now.
            try await Task.sleep(for: .seconds(1))
            #expect(try await database.scalar("SELECT count(*)::int FROM accounts WHERE bio = '늦은 소개'") == 0)
            #expect(try await database.scalar("SELECT count(*)::int FROM follows") == 0)
            #expect(try await database.scalar("SELECT follower_count + following_count FROM accounts ORDER BY 1 DESC LIMIT 1") == 0)
            // And the server goes on: the same requests succeed now.
            let patched = try await Self.unhurried { try await client.send(.patch, "/v1/me", json: ["bio": "제때 소개"], token: tokens[0]) }
            #expect(patched.status == .ok)
            let followed = try await Self.unhurried { try await client.send(.put, "/v1/users/\(other)/follow", token: tokens[0]) }
            #expect(followed.status == .ok)
        }
    }

    /// Sends `request` again (up to five times in all) while its answer is `503 timeout`: this
    /// test's short deadline passed on a loaded machine.
    private static func unhurried(_ request: () async throws -> TestResponse) async throws -> TestResponse {
        var response = try await request()
        for _ in 1..<5 where response.status == .serviceUnavailable && response.errorCode == "timeout" {
            response = try await request()
        }
        return response
    }

    @Test("a transaction commits only before its deadline; a commit under way is not cut off by it")
    func commitGate() {
        let late = OperationGate()
        #expect(late.expire())
        #expect(!late.enterCommit())
        let committing = OperationGate()
        #expect(committing.enterCommit())
        #expect(!committing.expire())
    }
}
