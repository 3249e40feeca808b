import Foundation
import PostgresNIO
import Testing

/// PostgreSQL ends the server's connections (a restart, an operator's `pg_terminate_backend`, a
/// timeout) while requests are running: the server keeps running and answers.
///
/// With a fixed pool (minimum = maximum connections), PostgresNIO 1.33's pool crashed a whole
/// test process once in a CI run: a closing connection stops counting as active before its
/// replacement starts, and a lease finding no idle connection then fails a precondition (see
/// `DatabaseConfiguration`). The window is narrow: this test did not hit it in three runs with
/// the fixed pool; it checks what must hold either way (no 5xx but 503, and recovery).
@Suite("Connections ended by PostgreSQL")
struct TerminatedConnectionTests {
    @Test("terminating every connection of the server under load: no crash, each request answered 200 or 503, then all 200")
    func terminatedUnderLoad() async throws {
        // No page cache: every request reads from PostgreSQL.
        try await withTestApp(feedCacheLifetime: 0) { client, database in
            let tokens = try await database.makeAccounts(1)
            let token = tokens[0]
            for index in 0..<5 { _ = try await client.postCard(token, "카드 \(index)") }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        for _ in 0..<40 {
                            let status = try await client.send(.get, "/v1/feeds/latest?limit=5", token: token).status
                            #expect(status == .ok || status == .serviceUnavailable, "answered \(status)")
                        }
                    }
                }
                group.addTask {
                    for _ in 0..<10 {
                        try await database.execute(
                            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
                        try await Task.sleep(for: .milliseconds(30))
                    }
                }
                try await group.waitForAll()
            }
            // Recovered: every request is served again.
            try await eventually("the server serves again") {
                try await client.send(.get, "/v1/feeds/latest?limit=5", token: token).status == .ok
            }
            for _ in 0..<10 { #expect(try await client.send(.get, "/v1/feeds/latest?limit=5", token: token).status == .ok) }
        }
    }
}
