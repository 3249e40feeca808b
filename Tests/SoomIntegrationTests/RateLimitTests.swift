import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import SoomHTTP

@Suite("Rate limits")
struct RateLimitTests {
    @Test("posting: RateLimit headers on every response, then 429 rate_limited with Retry-After, and nothing created")
    func posting() async throws {
        var limits = RateLimits()
        limits.posting = RateLimits.Rule(count: 3, window: 600)
        limits.general = RateLimits.Rule(count: 5, window: 300)
        try await withTestApp(rateLimits: limits) { client, database in
            let tokens = try await database.makeAccounts(2)
            let body: [String: Any] = ["content": "제한", "background": ["default": "sky-dawn"]]
            var remaining: [String?] = []
            let card = try await client.send(.post, "/v1/cards", json: body, token: tokens[0])
            remaining.append(card.headers[.rateLimitRemaining])
            for _ in 0..<2 {
                let answer = try await client.send(.post, "/v1/cards/\(try card.object.id)/comments", json: body, token: tokens[0])
                #expect(answer.status == .created && answer.headers[.rateLimitLimit] == "3")
                remaining.append(answer.headers[.rateLimitRemaining])
            }
            #expect(remaining == ["2", "1", "0"])
            let refused = try await client.send(.post, "/v1/cards", json: body, token: tokens[0])
            #expect(refused.status == .tooManyRequests && refused.errorCode == "rate_limited")
            let retry = try #require(refused.headers[.retryAfter].flatMap(Int.init))
            #expect((590...600).contains(retry) && refused.headers[.rateLimitReset] == "\(retry)" && refused.headers[.rateLimitRemaining] == "0")
            #expect(try await database.scalar("SELECT count(*)::int FROM cards") == 3)
            // Another account is not affected; the refused one can still read.
            #expect(try await client.send(.post, "/v1/cards", json: body, token: tokens[1]).status == .created)
            let read = try await client.send(.get, "/v1/feeds/latest", token: tokens[0])
            #expect(read.status == .ok && read.headers[.rateLimitLimit] == "5")

            // Everything else: errors count and carry the headers too.
            let missing = try await client.send(.get, "/v1/cards/\(UUID())", token: tokens[0])
            #expect(missing.status == .notFound && missing.headers[.rateLimitRemaining] == "3")
            for _ in 0..<3 { _ = try await client.send(.get, "/v1/me", token: tokens[0]) }
            let flooded = try await client.send(.get, "/v1/me", token: tokens[0])
            #expect(flooded.status == .tooManyRequests && flooded.headers[.retryAfter] != nil)
            // Operations routes are not limited.
            let health = try await client.send(.get, "/healthz")
            #expect(health.status == .ok && health.headers[.rateLimitLimit] == nil)
        }
    }

    @Test("unauthenticated routes are counted per client address: challenges and account creation")
    func perAddress() async throws {
        var limits = RateLimits()
        limits.challenges = RateLimits.Rule(count: 2, window: 60)
        limits.accountCreation = RateLimits.Rule(count: 1, window: 3600)
        try await withTestApp(rateLimits: limits) { client, database in
            // Registering spends one challenge and one account creation.
            _ = try await TestDevice.a.register(client)
            let challenge = try await client.send(.post, "/v1/auth/challenges")
            #expect(challenge.status == .created && challenge.headers[.rateLimitRemaining] == "0")
            let refused = try await client.send(.post, "/v1/auth/challenges")
            #expect(refused.status == .tooManyRequests && refused.errorCode == "rate_limited" && refused.headers[.retryAfter] != nil)
            let account = try await client.send(.post, "/v1/accounts", json: ["publicKey": "x", "algorithm": "rsa-pss-sha256"])
            #expect(account.status == .tooManyRequests)
            #expect(try await database.scalar("SELECT count(*)::int FROM accounts") == 1)
        }
    }

    @Test("an address's limit comes before the session lookup: unknown tokens are refused with limit headers, then 429 without a lookup")
    func addressBeforeSession() async throws {
        var limits = RateLimits()
        limits.general = RateLimits.Rule(count: 3, window: 300)
        try await withTestApp(rateLimits: limits) { client, database in
            let token = try await database.makeAccounts(1)[0]
            // Valid sessions count per account, not against the address.
            for _ in 0..<3 { #expect(try await client.send(.get, "/v1/me", token: token).status == .ok) }
            var remaining: [String?] = []
            for _ in 0..<3 {
                let guess = try await client.send(.get, "/v1/me", token: "guess-\(UUID())")
                #expect(guess.status == .unauthorized && guess.errorCode == "unauthorized")
                remaining.append(guess.headers[.rateLimitRemaining])
            }
            #expect(remaining == ["2", "1", "0"])
            // Without a token the address's limit applies as before.
            let bare = try await client.send(.get, "/v1/feeds/latest")
            #expect(bare.status == .tooManyRequests && bare.headers[.retryAfter] != nil)
            // The address is spent: further guesses are 429 before any session is looked up, and
            // so is an optional-session route with a bad token.
            let refused = try await client.send(.get, "/v1/me", token: "guess-\(UUID())")
            #expect(refused.status == .tooManyRequests && refused.errorCode == "rate_limited" && refused.headers[.rateLimitRemaining] == "0")
            #expect(try await client.send(.get, "/v1/tags/ranked", token: "guess-\(UUID())").status == .tooManyRequests)
        }
    }

    @Test("memory stays bounded under a flood of distinct addresses; the busiest callers keep their counts")
    func boundedMemory() {
        var limits = RateLimits()
        limits.general = RateLimits.Rule(count: 5, window: 300)
        let limiter = RateLimiter(limits: limits, capacity: 1_600)
        let busy = RateLimiter.Caller.address(RateLimiter.addressKey("203.0.113.7"))
        for _ in 0..<5 { #expect(limiter.check(.general, caller: busy).allowed) }
        #expect(!limiter.check(.general, caller: busy).allowed)
        var most = 0
        for index in 0..<100_000 {
            let address = "10.\(index >> 16 & 255).\(index >> 8 & 255).\(index & 255)"
            _ = limiter.check(.general, caller: .address(RateLimiter.addressKey(address)))
            if index % 1000 == 0 { most = max(most, limiter.windowCount) }
        }
        #expect(limiter.windowCount <= 1_600 && most <= 1_600, "\(limiter.windowCount), at most \(most)")
        // The flood did not reset the caller that was at its limit.
        #expect(!limiter.check(.general, caller: busy).allowed)
    }

    @Test("SOOM_RATE_LIMIT=off: no limits and no headers")
    func off() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            for _ in 0..<40 {
                let response = try await client.send(.post, "/v1/auth/challenges")
                #expect(response.status == .created && response.headers[.rateLimitLimit] == nil)
            }
            #expect(try await client.send(.get, "/v1/me", token: token).headers[.rateLimitLimit] == nil)
        }
    }
}
