import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

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
            for path in ["/", "/v1", "/v1/nope", "/v2/me", "/v1/me/extra/deep"] {
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
}
