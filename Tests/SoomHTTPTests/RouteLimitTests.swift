import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SoomDomain
import Testing

@testable import SoomHTTP

/// A route counts against the limit it was registered with (`APIRoutes`), and every answer of a
/// limited route, errors included, carries that limit's headers. (Which route has which limit is
/// checked against the real routes by `RateLimitTests`, with a database.)
@Suite("Route limits")
struct RouteLimitTests {
    /// `POST /v1/cards` limited as posting (1 in 10 minutes), `GET /v1/cards` as general (5 in 5
    /// minutes), `GET /v1/fail` throwing `error`; behind `ErrorMiddleware`, as in `buildRouter`.
    static func app(failingWith error: any Error = SoomError.cardNotFound) -> some ApplicationProtocol {
        var limits = RateLimits()
        limits.posting = RateLimits.Rule(count: 1, window: 600)
        limits.general = RateLimits.Rule(count: 5, window: 300)
        let limiter = RateLimiter(limits: limits)
        let router = Router(context: AppRequestContext.self)
        router.add(middleware: ErrorMiddleware())
        let routes = APIRoutes<AppRequestContext> { kind, _ in
            router.group("/v1").add(
                middleware: RateLimitMiddleware(
                    limiter: limiter, kind: kind, trustForwardedFor: false, sessionFollows: false, peerAddress: \.peerAddress))
        }
        routes.on("/cards", method: .post, limit: .posting) { _, _ in HTTPResponse.Status.created }
        routes.on("/cards", method: .get) { _, _ in HTTPResponse.Status.ok }
        routes.on("/fail", method: .get) { _, _ -> HTTPResponse.Status in throw error }
        return Application(router: router)
    }

    /// The `error` object of a JSON error body (its bytes are `ResponseBodyTests`' business).
    static func error(in response: TestResponse) throws -> [String: String] {
        let object = try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as? [String: [String: String]]
        return try #require(object?["error"])
    }

    @Test("the posting route spends the posting limit, then answers 429 with Retry-After; the general route is unaffected")
    func routeKnowsItsLimit() async throws {
        try await Self.app().test(.router) { client in
            try await client.execute(uri: "/v1/cards", method: .post) { response in
                #expect(response.status == .created)
                #expect(response.headers[.rateLimitLimit] == "1" && response.headers[.rateLimitRemaining] == "0")
            }
            try await client.execute(uri: "/v1/cards", method: .post) { response in
                #expect(response.status == .tooManyRequests)
                let retry = try #require(response.headers[.retryAfter].flatMap(Int.init))
                #expect((590...600).contains(retry) && response.headers[.rateLimitReset] == "\(retry)")
                let error = try Self.error(in: response)
                #expect(error["code"] == "rate_limited" && error["message"]?.hasPrefix("Too many requests; try again in ") == true)
            }
            try await client.execute(uri: "/v1/cards", method: .get) { response in
                #expect(response.status == .ok && response.headers[.rateLimitLimit] == "5" && response.headers[.rateLimitRemaining] == "4")
            }
        }
    }

    @Test("an error of a limited route is mapped once, with the route's headers and its own")
    func errorsCarryHeaders() async throws {
        try await Self.app().test(.router) { client in
            try await client.execute(uri: "/v1/fail", method: .get) { response in
                #expect(response.status == .notFound && response.headers[.rateLimitRemaining] == "4")
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                let error = try Self.error(in: response)
                #expect(error == ["code": "not_found", "message": "There is no such card."])
            }
        }
        try await Self.app(failingWith: SoomError.databaseTimeout).test(.router) { client in
            try await client.execute(uri: "/v1/fail", method: .get) { response in
                #expect(response.status == .serviceUnavailable && response.headers[.retryAfter] == "5")
                #expect(response.headers[.rateLimitLimit] == "5" && response.headers[.rateLimitRemaining] == "4")
            }
        }
    }

    @Test("during maintenance a write is 503 maintenance with Retry-After, until and its limit's headers; reads and exempt writes are served")
    func maintenanceRefusesWrites() async throws {
        let switches = OperatorSwitches()
        var limits = RateLimits()
        limits.general = RateLimits.Rule(count: 5, window: 300)
        let limiter = RateLimiter(limits: limits)
        let router = Router(context: AppRequestContext.self)
        router.add(middleware: ErrorMiddleware())
        let routes = APIRoutes<AppRequestContext> { kind, refused in
            let group = router.group("/v1").add(
                middleware: RateLimitMiddleware(
                    limiter: limiter, kind: kind, trustForwardedFor: false, sessionFollows: false, peerAddress: \.peerAddress))
            return refused ? group.add(middleware: MaintenanceMiddleware<AppRequestContext>(switches: switches)) : group
        }
        routes.on("/cards", method: .post) { _, _ in HTTPResponse.Status.created }
        routes.on("/cards", method: .get) { _, _ in HTTPResponse.Status.ok }
        routes.on("/sessions", method: .post, servedInMaintenance: true) { _, _ in HTTPResponse.Status.created }
        let until = Date().addingTimeInterval(90)
        switches.update(OperatorSwitches.Settings(maintenanceUntil: until))
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/v1/cards", method: .post) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter].flatMap(Int.init).map { (1...90).contains($0) } == true)
                #expect(response.headers[.rateLimitLimit] == "5" && response.headers[.rateLimitRemaining] == "4")
                let error = try Self.error(in: response)
                #expect(error["code"] == "maintenance" && error["until"] == JSON.timestamp(until))
            }
            try await client.execute(uri: "/v1/cards", method: .get) { response in
                // The refused write counted, as every answer but a 429 does.
                #expect(response.status == .ok && response.headers[.rateLimitRemaining] == "3")
            }
            try await client.execute(uri: "/v1/sessions", method: .post) { response in #expect(response.status == .created) }
            switches.update(OperatorSwitches.Settings(maintenanceUntil: Date().addingTimeInterval(-1)))
            try await client.execute(uri: "/v1/cards", method: .post) { response in #expect(response.status == .created) }
        }
    }
}
