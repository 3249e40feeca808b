import Foundation
import HummingbirdTesting
import SoomApp
import Testing
import Yams

@testable import SoomHTTP

@Suite("Operations routes and the OpenAPI document")
struct OperationsTests {
    @Test("healthz and readyz answer 200 with the database up")
    func health() async throws {
        try await withTestApp { client, _ in
            let health = try await client.send(.get, "/healthz")
            #expect(health.status == .ok)
            #expect(try health.object["status"] as? String == "ok")
            let ready = try await client.send(.get, "/readyz")
            #expect(ready.status == .ok)
            #expect(try ready.object["status"] as? String == "ready")
        }
    }

    @Test("every response carries X-Content-Type-Options: nosniff: success, errors, unknown routes, wrong methods, documents")
    func noSniff() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            let responses = [
                try await client.send(.get, "/healthz"), try await client.send(.get, "/openapi.yaml"),
                try await client.send(.get, "/metrics", headers: [.authorization: "Bearer \(testMetricsToken)"]),
                try await client.send(.get, "/v1/me", token: token), try await client.send(.get, "/v1/me"),
                try await client.send(.get, "/v1/no-such-route"), try await client.send(.delete, "/v1/feeds/latest", token: token),
                try await client.send(.post, "/v1/cards", raw: "{not json", token: token),
                try await client.send(.get, "/v1/images/defaults/sea-calm"),
            ]
            #expect(Set(responses.map(\.status.code)) == [200, 400, 401, 404, 405])
            for response in responses {
                #expect(response.headers[.init("X-Content-Type-Options")!] == "nosniff", "\(response.status)")
            }
        }
    }

    @Test("with SOOM_METRICS_TOKEN set, /metrics answers only that bearer token; anyone else gets the 404 of a missing path")
    func metricsToken() async throws {
        let secret = "0123456789abcdef0123456789abcdef"
        try await withTestApp(metricsToken: secret) { client, _ in
            let open = try await client.send(.get, "/metrics", headers: [.authorization: "Bearer \(secret)"])
            #expect(open.status == .ok)
            #expect(String(buffer: open.body).contains("# TYPE"))
            for header in [nil, "Bearer ", "Bearer \(secret.dropLast())", "Bearer \(secret)0", "bearer \(secret)", secret] {
                let response = try await client.send(.get, "/metrics", headers: header.map { [.authorization: $0] } ?? [:])
                #expect(response.status == .notFound, "\(header ?? "no header")")
                #expect(response.errorCode == "not_found")
            }
        }
        #expect(OperationsController.bearer("Bearer abc", matches: "abc"))
        #expect(!OperationsController.bearer("Bearer abd", matches: "abc") && !OperationsController.bearer(nil, matches: "abc"))
    }

    @Test("without SOOM_METRICS_TOKEN, /metrics is the 404 of a missing path for everyone")
    func metricsOffByDefault() async throws {
        try await withTestApp(metricsToken: nil) { client, _ in
            for header in [nil, "Bearer ", "Bearer anything"] {
                let response = try await client.send(.get, "/metrics", headers: header.map { [.authorization: $0] } ?? [:])
                #expect(response.status == .notFound && response.errorCode == "not_found", "\(header ?? "no header")")
                #expect(!String(buffer: response.body).contains("soom_"))
            }
        }
    }

    @Test("every /v1 answer says Cache-Control: no-store unless it says its own; images keep theirs; IDs are random, not counted")
    func cachingAndRequestIDs() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            for response in [
                try await client.send(.get, "/v1/me", token: token), try await client.send(.get, "/v1/feeds/latest", token: token),
                try await client.send(.get, "/v1/me"), try await client.send(.get, "/v1/no-such-route"),
                try await client.send(.post, "/v1/auth/challenges"), try await client.send(.get, "/v1/notifications", token: token),
            ] {
                #expect(response.headers[.cacheControl] == "no-store", "\(response.status)")
            }
            let image = try await client.send(.get, "/v1/images/defaults/sea-calm")
            #expect(image.headers[.cacheControl]?.hasPrefix("public") == true)
            #expect(try await client.send(.get, "/healthz").headers[.cacheControl] == nil)

            var ids: [String] = []
            for _ in 0..<5 { ids.append(try #require(try await client.send(.get, "/healthz").headers[.init("X-Request-ID")!])) }
            #expect(Set(ids).count == 5)
            for id in ids { #expect(id.count == 32 && id.allSatisfy(\.isHexDigit), "\(id)") }
            // Not a counter: no two consecutive IDs share their last 16 digits' neighbourhood.
            let lows = ids.compactMap { UInt64($0.suffix(16), radix: 16) }
            #expect(zip(lows, lows.dropFirst()).allSatisfy { $0.1 &- $0.0 > 1_000_000 || $0.0 &- $0.1 > 1_000_000 })
            let given = try await client.send(.get, "/healthz", headers: [.init("X-Request-ID")!: "mine-123"])
            #expect(given.headers[.init("X-Request-ID")!] == "mine-123")
        }
    }

    @Test("a value PostgreSQL refuses (a NUL character in an image id or a default name) is 400 invalid_request, never a 500, and writes nothing")
    func databaseDataException() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            for body in [#"{"content":"널","background":{"imageId":"a\u0000b"}}"#, #"{"content":"널","background":{"default":"sky\u0000"}}"#] {
                let response = try await client.send(.post, "/v1/cards", raw: body, token: token)
                #expect((400..<500).contains(response.status.code), "\(body) → \(response.status)")
                #expect(response.errorCode != nil)
            }
            #expect(try await database.scalar("SELECT count(*)::int FROM cards") == 0)
        }
    }

    @Test("/openapi.yaml serves the repository's openapi.yaml, byte for byte")
    func servesDocument() async throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("openapi.yaml")
        let onDisk = try Data(contentsOf: file)
        try await withTestApp { client, _ in
            let response = try await client.send(.get, "/openapi.yaml")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("application/yaml") == true)
            #expect(Data(response.body.readableBytesView) == onDisk)
        }
    }

    @Test("openapi.yaml parses and describes every route the server implements, and no other")
    func documentMatchesRoutes() throws {
        let document = try #require(try Yams.load(yaml: String(decoding: OpenAPIDocument.bytes, as: UTF8.self)) as? [String: Any])
        #expect((document["openapi"] as? String)?.hasPrefix("3.") == true)
        let paths = try #require(document["paths"] as? [String: Any])
        var described: Set<String> = []
        for (path, item) in paths {
            for method in ((item as? [String: Any]) ?? [:]).keys where ["get", "post", "put", "patch", "delete"].contains(method) {
                described.insert("\(method.uppercased()) \(path)")
            }
        }
        let catalog = EndpointCatalog()
        _ = buildRouter(
            identity: TestEnvironment.identity, cards: TestEnvironment.cards, tags: TestEnvironment.tags, people: TestEnvironment.people,
            notifications: TestEnvironment.notifications, push: TestEnvironment.push, images: TestEnvironment.images,
            operators: TestEnvironment.operators,
            switches: TestEnvironment.switches, readiness: TestEnvironment.database,
            digest: OpenSSLContentDigest.sha256Hex,
            catalog: catalog)
        let implemented = Set(catalog.endpoints.map { "\($0.method.rawValue) \($0.path)" })
        #expect(implemented.count > 10)
        #expect(implemented.subtracting(described).isEmpty, "routes missing from openapi.yaml: \(implemented.subtracting(described).sorted())")
        #expect(
            described.subtracting(implemented).isEmpty,
            "openapi.yaml describes routes that do not exist: \(described.subtracting(implemented).sorted())")
    }
}
