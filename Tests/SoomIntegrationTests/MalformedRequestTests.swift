import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import SoomHTTP

@Suite("Malformed and hostile requests get a 4xx JSON error and change nothing")
struct MalformedRequestTests {
    static let publicBodies: [(String, String)] = [
        ("/v1/accounts", ""),
        ("/v1/accounts", "{"),
        ("/v1/accounts", #"{"publicKey": "x", "algorithm": "rsa-pss-sha256", "challengeId": "y""#),
        ("/v1/accounts", "[]"),
        ("/v1/accounts", "null"),
        ("/v1/accounts", #"{"publicKey": 1, "algorithm": "rsa-pss-sha256", "challengeId": "y", "signature": "z"}"#),
        ("/v1/accounts", #"{"publicKey": "x", "algorithm": ["rsa-pss-sha256"], "challengeId": "y", "signature": "z"}"#),
        ("/v1/accounts", #"{"algorithm": "rsa-pss-sha256", "challengeId": "y", "signature": "z"}"#),
        ("/v1/accounts", #"{"publicKey": "x", "algorithm": "rsa-pss-sha256", "challengeId": "y", "signature": "z", "nickname": {}}"#),
        ("/v1/sessions", "not json at all"),
        ("/v1/sessions", "\u{FEFF}{}"),
        ("/v1/sessions", #"{"publicKey": null, "algorithm": "rsa-pss-sha256", "challengeId": "y", "signature": "z"}"#),
        ("/v1/accounts/transfer", #"{"code": 12}"#),
        ("/v1/nicknames/validation", #"{"nickname": true}"#),
        ("/v1/nicknames/validation", String(repeating: "[", count: 10000) + String(repeating: "]", count: 10000)),
    ]

    @Test("malformed JSON, wrong types and missing fields are 400 invalid_request")
    func malformedBodies() async throws {
        try await withTestApp { client, database in
            let before = try await database.snapshot()
            for (path, body) in Self.publicBodies {
                let response = try await client.send(.post, path, raw: body)
                #expect(response.status == .badRequest, "\(path) \(body.prefix(60)) → \(response.status)")
                #expect(response.errorCode == "invalid_request", "\(path) \(body.prefix(60))")
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            }
            #expect(try await database.snapshot() == before)
        }
    }

    @Test("wrong types name the field")
    func wrongTypeNamesField() async throws {
        try await withTestApp { client, _ in
            let response = try await client.send(
                .post, "/v1/accounts", raw: #"{"publicKey": 1, "algorithm": "a", "challengeId": "y", "signature": "z"}"#)
            #expect(response.errorField == "publicKey")
            let missing = try await client.send(.post, "/v1/sessions", raw: #"{"publicKey": "p", "algorithm": "a", "signature": "z"}"#)
            #expect(missing.errorField == "challengeId")
        }
    }

    @Test("bodies over 64 KiB are 413 payload_too_large, public or signed in")
    func hugeBodies() async throws {
        try await withTestApp { client, database in
            let (token, _) = try await TestDevice.a.register(client)
            let before = try await database.snapshot()
            let huge = #"{"nickname": ""# + String(repeating: "가", count: 30_000) + #""}"#
            for (method, path, token) in [
                (HTTPRequest.Method.post, "/v1/accounts", nil), (.post, "/v1/sessions", nil), (.post, "/v1/nicknames/validation", nil),
                (.patch, "/v1/me", token), (.delete, "/v1/me", token),
            ] as [(HTTPRequest.Method, String, String?)] {
                let response = try await client.send(method, path, raw: huge, token: token)
                #expect(response.status == .contentTooLarge, "\(method) \(path)")
                #expect(response.errorCode == "payload_too_large", "\(method) \(path)")
            }
            #expect(try await database.snapshot() == before)
            #expect(try await client.send(.get, "/v1/me", token: token).status == .ok)
        }
    }

    @Test("a nickname validation body just under the limit is answered, not refused")
    func largeButAllowed() async throws {
        try await withTestApp { client, _ in
            let response = try await client.send(
                .post, "/v1/nicknames/validation", raw: #"{"nickname": ""# + String(repeating: "a", count: 60_000) + #""}"#)
            #expect(response.status == .ok)
            #expect(try response.object["reason"] as? String == "too_long")
        }
    }

    @Test("unknown routes are 404 not_found; wrong methods are 405 with Allow")
    func routing() async throws {
        try await withTestApp { client, _ in
            for path in ["/v1", "/app", "/app/x", "/v1/nope", "/v2/me", "/v1/me/extra/deep"] {
                let response = try await client.send(.get, path)
                #expect(response.status == .notFound, "\(path)")
                #expect(response.errorCode == "not_found", "\(path)")
            }
            let wrong = try await client.send(.put, "/v1/me")
            #expect(wrong.status == .methodNotAllowed)
            #expect(wrong.errorCode == "method_not_allowed")
            #expect(wrong.headers[.allow] == "GET, PATCH, DELETE")
            let challenge = try await client.send(.get, "/v1/auth/challenges")
            #expect(challenge.status == .methodNotAllowed && challenge.headers[.allow] == "POST")
        }
    }

    @Test("paths match exactly as sent: //, . and .. segments (also %2e) and a trailing / are 404, never another route")
    func exactPaths() async throws {
        var limits = RateLimits()
        limits.accountCreation = .init(count: 2, window: 3600)
        try await withTestApp(rateLimits: limits) { client, database in
            let (token, _) = try await TestDevice.a.register(client)
            for path in [
                "/v1//accounts", "//v1/accounts", "/v1/accounts/", "/v1/./accounts", "/v1/x/../accounts", "/v1/%2e/accounts",
                "/v1/%2E%2e/v1/accounts", "/healthz/", "//healthz", "/v1/feeds/latest/", "/v1/feeds//latest",
            ] {
                for method: HTTPRequest.Method in [.get, .post] {
                    let response = try await client.send(method, path, token: token)
                    #expect(response.status == .notFound && response.errorCode == "not_found", "\(method) \(path)")
                }
            }
            // None of those counted as a sign-up: the second sign-up the limit allows is still there.
            #expect(try await database.scalar("SELECT count(*)::int FROM accounts") == 1)
            var body = try await TestDevice.b.proof(client, purpose: "register")
            body["nickname"] = "둘째"
            #expect(try await client.send(.post, "/v1/accounts", json: body).status == .created)
        }
    }

    @Test("TRACE, OPTIONS, HEAD and unknown-to-the-router methods on a known path are 405 with Allow; elsewhere 404")
    func otherMethods() async throws {
        try await withTestApp { client, _ in
            for method in [HTTPRequest.Method.trace, .options, .head] {
                let feed = try await client.send(method, "/v1/feeds/latest")
                #expect(feed.status == .methodNotAllowed && feed.headers[.allow] == "GET", "\(method)")
                let card = try await client.send(method, "/v1/cards/0b9c7a8e-1f1e-4c55-9f8e-0d4e4b2f1c11")
                #expect(card.status == .methodNotAllowed && card.headers[.allow] == "GET, DELETE", "\(method)")
                let me = try await client.send(method, "/v1/me")
                #expect(me.status == .methodNotAllowed && me.headers[.allow] == "GET, PATCH, DELETE", "\(method)")
                #expect(try await client.send(method, "/v1/nope").status == .notFound, "\(method)")
                #expect(try await client.send(method, "/v1/feeds/latest/").status == .notFound, "\(method)")
                if method != .head {
                    #expect(try await client.send(method, "/v1/feeds/latest").errorCode == "method_not_allowed", "\(method)")
                }
            }
        }
    }

    @Test("null where the schema allows no null is 400 naming the field; an upload id that is no UUID is 422, not a database error")
    func nullsAndIDShapes() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            let card: [String: Any] = ["content": "널", "background": ["default": "sea-calm"]]
            for field in ["font", "tags", "story", "location"] {
                var body = card
                body[field] = NSNull()
                let response = try await client.send(.post, "/v1/cards", json: body, token: token)
                #expect(response.status == .badRequest && response.errorCode == "invalid_request" && response.errorField == field, "\(field)")
            }
            for field in ["bio", "nickname"] {
                let response = try await client.send(.patch, "/v1/me", json: [field: NSNull()], token: token)
                #expect(response.status == .badRequest && response.errorField == field, "\(field)")
            }
            // profileImage: null is allowed: it removes the picture.
            #expect(try await client.send(.patch, "/v1/me", json: ["profileImage": NSNull()], token: token).status == .ok)
            for id in ["x\u{0}", "not-a-uuid", String(repeating: "a", count: 300)] {
                let response = try await client.send(.post, "/v1/cards", json: ["content": "사진", "background": ["imageId": id]], token: token)
                #expect(response.status == .unprocessableContent && response.errorField == "background", "\(id.prefix(12))")
            }
            #expect(try await database.scalar("SELECT count(*)::int FROM cards") == 0)
        }
    }

    @Test("the exact-path rule, segment by segment")
    func exactPathRule() {
        for path in ["/", "/v1/me", "/v1/cards/abc", "/v1/tags/%ED%95%98%EB%8A%98/cards", "/v1/x.y", "/v1/...", "/v1/.a", "/v1/%2ex"] {
            #expect(ExactPathMiddleware<AppRequestContext>.isExact(path), "\(path)")
        }
        for path in ["", "v1/me", "//", "/v1/", "/v1//me", "/./v1", "/v1/..", "/v1/%2e", "/v1/%2E%2e", "/v1/.%2E/me", "/v1/me/."] {
            #expect(!ExactPathMiddleware<AppRequestContext>.isExact(path), "\(path)")
        }
    }
}
