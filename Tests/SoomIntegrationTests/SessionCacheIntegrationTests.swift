import Foundation
import HummingbirdTesting
import Logging
import PostgresNIO
import SoomDomain
import Testing

@testable import SoomData
@testable import SoomHTTP

@Suite("Session cache against PostgreSQL: notifications, several instances")
struct SessionCacheIntegrationTests {
    /// Keeps an entry for `accountID` under `tokenHash`.
    static func keep(_ cache: SessionCache, _ accountID: UUID, _ tokenHash: [UInt8]) {
        let account = Account(id: accountID, nickname: "n", profileImage: nil, bio: "", createdAt: Date())
        cache.store(LiveSession(account: account, expiresAt: Date() + 3600), tokenHash: tokenHash, ticket: cache.ticket(), now: Date())
    }

    static func cached(_ cache: SessionCache, _ tokenHash: [UInt8]) -> Bool {
        cache.session(tokenHash: tokenHash, now: Date()) != nil
    }

    @Test("the listener drops an account's entries on each kind of change, not on counters, and switches the cache off while cut off")
    func listener() async throws {
        try await withTestApp { client, database in
            let cache = SessionCache(lifetime: 300)
            let listener = SessionInvalidationListener(
                database: database.configuration, cache: cache, startAfter: OneTimeSignal(signalled: true), logger: Logger(label: "soom-test"),
                // A cut-off is noticed by the connection's end, not by a missed heartbeat; a heartbeat
                // timeout of 1 s was missed once in 10 suite runs, the whole suite loading both cores.
                heartbeat: .milliseconds(200), heartbeatTimeout: .seconds(5))
            let running = Task { try await listener.run() }
            defer { running.cancel() }
            try await eventually("the listener connects") { cache.isActive }
            // Five heartbeats (notifications sent and heard back) later, it is still on.
            try await Task.sleep(for: .seconds(1))
            #expect(cache.isActive)

            let (token, registered) = try await TestDevice.a.register(client)
            let me = try #require((registered["id"] as? String).flatMap(UUID.init(uuidString:)))
            let (otherToken, otherAccount) = try await TestDevice.b.register(client)
            let other = try #require((otherAccount["id"] as? String).flatMap(UUID.init(uuidString:)))

            let changes: [(String, PostgresQuery)] = [
                ("bio", "UPDATE accounts SET bio = 'changed' WHERE id = \(me)"),
                ("nickname", "UPDATE accounts SET nickname = 'Renamed', nickname_key = 'renamed' WHERE id = \(me)"),
                ("picture", "UPDATE accounts SET profile_image_kind = 'default', profile_image_ref = 'sky-dawn' WHERE id = \(me)"),
                ("restriction", "UPDATE accounts SET restricted_until = now() + interval '1 day' WHERE id = \(me)"),
                ("a live session's end", "DELETE FROM sessions WHERE account_id = \(other)"),
            ]
            for (name, change) in changes {
                Self.keep(cache, me, [1])
                Self.keep(cache, other, [2])
                try await database.execute(change)
                let gone: [UInt8] = name == "a live session's end" ? [2] : [1]
                let kept: [UInt8] = gone == [1] ? [2] : [1]
                try await eventually("\(name) drops the entry") { !Self.cached(cache, gone) }
                #expect(Self.cached(cache, kept), "\(name) dropped another account's entry")
            }
            _ = otherToken

            // Counters change all the time and notify nothing. Notifications arrive in commit
            // order, so once a later change is heard, an earlier one would have been too.
            Self.keep(cache, me, [1])
            Self.keep(cache, other, [2])
            try await database.execute("UPDATE accounts SET follower_count = follower_count + 1, card_count = card_count + 1 WHERE id = \(me)")
            try await database.execute("UPDATE accounts SET bio = 'later' WHERE id = \(other)")
            try await eventually("the later change is heard") { !Self.cached(cache, [2]) }
            #expect(Self.cached(cache, [1]))

            // Withdrawal (the account's deletion) over HTTP.
            #expect(try await TestDevice.a.withdraw(client, token: token, reason: "bye").status == .noContent)
            try await eventually("withdrawal drops the entry") { !Self.cached(cache, [1]) }

            // TRUNCATE fires no row trigger: its statement trigger empties every cache.
            Self.keep(cache, other, [2])
            Self.keep(cache, UUID(), [4])
            try await database.execute("TRUNCATE sessions")
            try await eventually("TRUNCATE drops every entry") { cache.count == 0 }
            #expect(cache.isActive)

            // Cut off: the cache empties and stops until the listener is back, then works again.
            Self.keep(cache, other, [3])
            let terminate: PostgresQuery =
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = \(SessionInvalidationListener.applicationName)"
            try await database.execute(terminate)
            try await eventually("the cut-off is noticed") { !cache.isActive }
            #expect(cache.count == 0)
            try await eventually("the listener reconnects") { cache.isActive }
            Self.keep(cache, other, [3])
            #expect(Self.cached(cache, [3]))

            // A disabled trigger would leave changes unheard: the listener keeps the cache off.
            try await database.execute("ALTER TABLE sessions DISABLE TRIGGER sessions_ended")
            try await database.execute(terminate)
            try await eventually("the cut-off is noticed") { !cache.isActive }
            try await Task.sleep(for: .milliseconds(2500))
            #expect(!cache.isActive, "resumed without the sessions_ended trigger")
            try await database.execute("ALTER TABLE sessions ENABLE TRIGGER sessions_ended")
            try await eventually("the listener resumes once the trigger is back", timeout: .seconds(15)) { cache.isActive }
        }
    }

    @Test("behind a load balancer: sign-out, a new nickname and withdrawal on one instance reach the other at once")
    func twoInstances() async throws {
        // A lifetime of five minutes: only the notifications can explain what the other instance sees.
        try await withTwoTestApps(sessionCacheLifetime: 300) { one, two, _ in
            // Let both listeners connect (no session is cached before that).
            try await Task.sleep(for: .milliseconds(300))
            let (token, _) = try await TestDevice.a.register(one)
            let (leaverToken, _) = try await TestDevice.b.register(one)
            for _ in 0..<2 {
                #expect(try await two.send(.get, "/v1/feeds/latest", token: token).status == .ok)
                #expect(try await two.send(.get, "/v1/feeds/latest", token: leaverToken).status == .ok)
            }

            #expect(try await one.send(.patch, "/v1/me", json: ["nickname": "NewName"], token: token).status == .ok)
            try await eventually("the other instance posts under the new nickname") {
                let card = try await two.postCard(token)
                return (card["author"] as? [String: Any])?["nickname"] as? String == "NewName"
            }

            #expect(try await one.send(.delete, "/v1/sessions/current", token: token).status == .noContent)
            #expect(try await one.send(.get, "/v1/feeds/latest", token: token).status == .unauthorized)
            try await eventually("the other instance refuses the token") {
                try await two.send(.get, "/v1/feeds/latest", token: token).status == .unauthorized
            }

            // Writes racing a withdrawal get 401 from whichever side loses, never a 5xx.
            let card = try await one.postCard(leaverToken)
            let cardID = try #require(card["id"] as? String)
            async let withdrawal = TestDevice.b.withdraw(one, token: leaverToken, reason: "bye")
            var statuses: Set<Int> = []
            for _ in 0..<20 {
                statuses.insert(Int(try await two.send(.put, "/v1/cards/\(cardID)/like", token: leaverToken).status.code))
            }
            #expect(try await withdrawal.status == .noContent)
            try await eventually("the other instance refuses the withdrawn account") {
                try await two.send(.put, "/v1/cards/\(cardID)/like", token: leaverToken).status == .unauthorized
            }
            #expect(statuses.isSubset(of: [200, 401, 404]), "\(statuses)")
        }
    }

    @Test("a write naming an account that no longer exists is 401; every foreign key to accounts is classified")
    func missingCaller() async throws {
        try await withTestApp { client, database in
            let (token, _) = try await TestDevice.a.register(client)
            let posted = try await client.postCard(token)
            let cardID = try #require((posted["id"] as? String).flatMap(UUID.init(uuidString:)))
            await #expect(throws: SoomError.unauthorized) {
                try await database.withCardRepository { try await $0.setLike(true, cardID: cardID, by: UUID()) }
            }
            #expect(try await database.scalar("SELECT like_count FROM cards WHERE id = \(cardID)") == 0)

            // A like of a card that is gone by the time the like is written.
            await #expect(throws: SoomError.cardNotFound) {
                try await database.withCardRepository {
                    try await $0.database.execute("INSERT INTO likes (card_id, account_id, created_at) SELECT \(UUID()), id, now() FROM accounts")
                }
            }

            func foreignKeys(to table: String) async throws -> [String: String] {
                let rows = try await database.rows(
                    "SELECT conname::text, confdeltype::text FROM pg_constraint WHERE contype = 'f' AND confrelid = \(table)::regclass")
                return Dictionary(uniqueKeysWithValues: try rows.map { try $0.decode((String, String).self) })
            }
            let toAccounts = try await foreignKeys(to: "accounts")
            #expect(PSQLError.callerAccountReferences.isDisjoint(with: PSQLError.targetAccountReferences))
            #expect(Set(toAccounts.keys) == PSQLError.callerAccountReferences.union(PSQLError.targetAccountReferences))
            let toCards = try await foreignKeys(to: "cards")
            #expect(Set(toCards.keys) == PSQLError.cardReferences.union(["card_tags_card_id_fkey"]))
            // Cascading on delete: a violation of these can only come from the inserting side.
            for name in PSQLError.callerAccountReferences.union(PSQLError.cardReferences) {
                #expect(toAccounts[name] ?? toCards[name] == "c", "\(name)")
            }
        }
    }
}

@Suite("Session listener stops while PostgreSQL ends its connections")
struct ListenerStopTests {
    /// The suite's rare hang: a listener whose connection the server ended just after `LISTEN`
    /// waited for ever on its trigger check (no error, no cancellation reached it), and the app's
    /// graceful shutdown with it. Seen in 1 of 80 stops of a version of this test that ended
    /// connections every 0–4 ms, before the fix; the opt-in
    /// `ShutdownStressTests` showed it in 5 of 36 apps.
    @Test("a listener stops within seconds of being cancelled, whatever phase its connection was ended in")
    func stopsWhileConnectionsAreEnded() async throws {
        try await withFreshDatabase { configuration in
            let database = TestDatabase(configuration: configuration)
            // Ends the listener's connections over and over, in every phase: connecting, LISTEN, the trigger check, listening.
            // Only in this test's database: the cluster is shared, and every test app has a listener of its own.
            let terminator = Task {
                while !Task.isCancelled {
                    try? await database.execute(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = \(SessionInvalidationListener.applicationName)"
                    )
                    // Often enough to hit every phase (a connection's setup takes 10–50 ms here), not
                    // so often that the suite's other tests starve.
                    try? await Task.sleep(for: .milliseconds(Int.random(in: 3...20)))
                }
            }
            defer { terminator.cancel() }
            for round in 0..<20 {
                let listener = SessionInvalidationListener(
                    database: configuration, cache: SessionCache(lifetime: 300), startAfter: OneTimeSignal(signalled: true),
                    logger: Logger(label: "soom-test"), heartbeat: .milliseconds(200), heartbeatTimeout: .seconds(1), setupTimeout: .seconds(2))
                let stopped = FirstOutcome()
                let running = Task {
                    try? await listener.run()
                    stopped.resolve(.success(()))
                }
                try await Task.sleep(for: .milliseconds(Int.random(in: 20...600)))
                running.cancel()
                let timer = Task {
                    try await Task.sleep(for: .seconds(5))
                    stopped.resolve(.failure(TestTimedOut(limit: .seconds(5), phase: "listener stop, round \(round)")))
                }
                let outcome = await stopped.value
                timer.cancel()
                #expect(throws: Never.self) { try outcome.get() }
            }
            terminator.cancel()
            _ = await terminator.result
        }
    }
}
