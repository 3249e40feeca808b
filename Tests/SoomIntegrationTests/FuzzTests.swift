import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import PostgresNIO
import SoomApp
import Testing

@testable import SoomHTTP

/// Thousands of generated malformed requests against every route, on real PostgreSQL.
///
/// The invariants: never a 5xx (nor a dropped connection), every error is the contract's JSON
/// error, and a request answered with a 4xx changes nothing in the database (a fingerprint of
/// every table's rows is compared before and after). A request that happens to be valid may
/// change things; the fingerprint is then taken again. `SOOM_FUZZ_REQUESTS` sets how many
/// requests are sent (default 4,000), `SOOM_FUZZ_SEED` replays a run.
@Suite("Hostile input: generated malformed requests")
struct FuzzTests {
    /// Routes not sent with the valid session: they would end it (the rest of the run needs it),
    /// or, for the live stream, never answer in full (`NotificationStreamTests` covers it).
    static let endsTheSession: Set<String> = ["DELETE /v1/me", "DELETE /v1/sessions/current", "GET /v1/notifications/stream"]

    @Test("every route, thousands of malformed requests: never a 5xx, always a JSON error, and a 4xx changes nothing")
    func fuzzEveryRoute() async throws {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["SOOM_FUZZ_REQUESTS"].flatMap(Int.init) ?? 4_000
        let seed = environment["SOOM_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        let catalog = EndpointCatalog()
        _ = buildRouter(
            identity: TestEnvironment.identity, cards: TestEnvironment.cards, tags: TestEnvironment.tags, people: TestEnvironment.people,
            notifications: TestEnvironment.notifications, push: TestEnvironment.push, images: TestEnvironment.images,
            operators: TestEnvironment.operators,
            switches: TestEnvironment.switches, readiness: TestEnvironment.database,
            digest: OpenSSLContentDigest.sha256Hex, catalog: catalog)
        let routes = catalog.endpoints.filter { $0.path.hasPrefix("/v1") }.sorted { "\($0.method) \($0.path)" < "\($1.method) \($1.path)" }
        try #require(routes.count > 30)

        // Views and visits that successful reads note are written in the background (`ViewFlushJob`):
        // not during this run, so that the database changes only by what a request does.
        let noViewFlush: @Sendable (inout AppConfiguration) -> Void = { $0.viewFlushInterval = .seconds(3600) }
        try await withTestApp(backgroundJobs: false, adjust: noViewFlush) { client, database in
            let tokens = try await database.makeAccounts(2)
            let other = try await client.accountID(tokens[1])
            let card = try await client.postCard(tokens[1], "표적 카드", extra: ["tags": ["표적"]])
            let answer = try await client.postCard(tokens[0], "내 답", parent: card.id)
            let notification = try await database.rows("SELECT id FROM notifications LIMIT 1").first?.decode(UUID.self)
            let known = [other, card.id, answer.id, try await client.accountID(tokens[0])] + (notification.map { [$0.uuidString] } ?? [])

            // The challenge seal's secret is made on first use: before the run, not by a refused request.
            #expect(try await client.send(.post, "/v1/auth/challenges").status == .created)
            let logger = Logger(label: "soom-fuzz")
            try await TestPostgres.withConnection(database.configuration, logger: logger) { connection in
                let fingerprint = try await Fingerprint(connection: connection, logger: logger)

                var generator = HostileRequests(random: SeededGenerator(seed: seed), knownIDs: known, token: tokens[0])
                var before = try await fingerprint.take()
                var statuses: [Int: Int] = [:]
                for number in 0..<count {
                    let route = generator.pick(routes)
                    let name = "\(route.method.rawValue) \(route.path)"
                    let signedIn = !Self.endsTheSession.contains(name) && generator.chance(75)
                    let request = generator.request(route.method, route.path, signedIn: signedIn)
                    let response = try await client.execute(
                        uri: request.uri, method: request.method, headers: request.headers, body: request.body.map { ByteBuffer(bytes: $0) })
                    let status = Int(response.status.code)
                    statuses[status, default: 0] += 1
                    let context =
                        "request \(number) of seed \(seed): \(request.method) \(request.uri.prefix(200)) → \(status) \(String(buffer: response.body).prefix(300))"
                    try #require(status < 500, "\(context)")
                    if status >= 400 {
                        try #require(response.errorCode != nil, "not a contract error: \(context)")
                        let after = try await fingerprint.take()
                        try #require(after == before, "a \(status) changed the database: \(context)")
                    } else if !(request.method == .get) {
                        before = try await fingerprint.take()
                    }
                }
                print("fuzz: \(count) requests, seed \(seed), statuses \(statuses.sorted { $0.key < $1.key })")
                // The run reached past the door: not everything was refused at the same check.
                #expect(statuses.keys.filter { (400..<500).contains($0) }.count >= 5, "statuses: \(statuses)")
                #expect(statuses.keys.contains { $0 < 300 }, "statuses: \(statuses)")
                #expect(try await client.send(.get, "/v1/me", token: tokens[0]).status == .ok)
            }
        }
    }
}

/// A digest of every row of every table (one round trip), to prove a request changed nothing.
struct Fingerprint {
    let connection: PostgresConnection
    let logger: Logger
    let query: String

    init(connection: PostgresConnection, logger: Logger) async throws {
        self.connection = connection
        self.logger = logger
        var tables: [String] = []
        let rows = try await connection.query(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename", logger: logger)
        for try await name in rows.decode(String.self) { tables.append(name) }
        self.query =
            "SELECT md5("
            + tables.map { table in
                "'\(table):' || (SELECT count(*) FROM \(table)) || ':' || coalesce((SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) FROM \(table) t), '')"
            }.joined(separator: " || ") + ")"
    }

    func take() async throws -> String {
        let rows = try await self.connection.query(PostgresQuery(unsafeSQL: self.query), logger: self.logger).collect()
        return try rows[0].decode(String.self)
    }
}
