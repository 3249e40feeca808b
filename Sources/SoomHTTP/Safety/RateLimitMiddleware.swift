import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import SoomDomain

/// Applies the contract's rate limits to `/v1` routes, *before* any session is looked up:
/// `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` on every response of a limited
/// route (`401`s included), and `429 rate_limited` with `Retry-After` once a caller has used up
/// its window.
///
/// Requests without a session are counted per client address (from the connection, or the last
/// `X-Forwarded-For` entry when the server sits behind a trusted proxy). On a group whose
/// `AuthenticationMiddleware` follows (`sessionFollows`), a request that sends a token is first
/// held to its address's limit without being counted there — so unknown tokens cannot be tried at
/// full speed, and each try costs no database round trip once the address is over its limit — and
/// then counted per account by `AccountRateLimitMiddleware` when its session is valid, or per
/// address when it is refused (`401`). Many signed-in people behind one address (a carrier's NAT)
/// thus do not share one budget.
struct RateLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let limiter: RateLimiter
    /// The limit of the route this middleware stands in front of.
    let kind: RateLimits.Kind
    let trustForwardedFor: Bool
    /// Whether an `AuthenticationMiddleware` (and an `AccountRateLimitMiddleware`) come after this one.
    let sessionFollows: Bool
    let peerAddress: @Sendable (Context) -> String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let kind = self.kind
        let forwarded = self.trustForwardedFor ? Self.lastForwardedFor(request.headers) : nil
        let address = RateLimiter.Caller.address(RateLimiter.addressKey(forwarded ?? self.peerAddress(context) ?? "unknown"))
        guard self.sessionFollows, request.headers[.authorization] != nil else {
            let decision = self.limiter.check(kind, caller: address)
            return try await decision.apply(kind: kind) { try await next(request, context) }
        }
        // A token: the address's limit first, counting nothing yet.
        let gate = self.limiter.check(kind, caller: address, counting: false)
        guard gate.allowed else { return try await gate.apply(kind: kind) { try await next(request, context) } }
        do {
            return try await next(request, context)
        } catch let error as SoomError where error == .unauthorized {
            // Refused at the door: the try counts against the address.
            let decision = self.limiter.check(kind, caller: address)
            return try await decision.apply(kind: kind) { throw error }
        }
    }

    /// The address the trusted proxy appended: the last entry of the last `X-Forwarded-For`.
    static func lastForwardedFor(_ headers: HTTPFields) -> String? {
        guard let value = headers[values: .xForwardedFor].last,
            let last = value.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
        else { return nil }
        return last
    }
}

/// Counts a signed-in request against its account's limit; after `AuthenticationMiddleware`,
/// behind a `RateLimitMiddleware` that held it to its address's limit first. A request without a
/// session (on a route where one is optional) was counted per address already and passes.
struct AccountRateLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let limiter: RateLimiter
    let kind: RateLimits.Kind
    let account: @Sendable (Context) -> UUID?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let account = self.account(context) else { return try await next(request, context) }
        let decision = self.limiter.check(self.kind, caller: .account(account))
        return try await decision.apply(kind: self.kind) { try await next(request, context) }
    }
}

extension RateLimiter.Decision {
    /// The three `RateLimit-*` headers of this decision.
    var headers: HTTPFields {
        var headers = HTTPFields()
        headers[.rateLimitLimit] = "\(self.limit)"
        headers[.rateLimitRemaining] = "\(self.remaining)"
        headers[.rateLimitReset] = "\(self.reset)"
        return headers
    }

    /// `429 rate_limited` when refused; else the response of `respond`, or its error, with this
    /// decision's headers (the contract wants them on every response of a limited route). The
    /// error is not mapped here: it leaves carrying the headers, for `ErrorMiddleware`.
    func apply(kind: RateLimits.Kind, _ respond: () async throws -> Response) async throws -> Response {
        var headers = self.headers
        guard self.allowed else {
            RateLimitRejections.counters[kind.rawValue].increment()
            headers[.retryAfter] = "\(self.reset)"
            throw APIError(
                .tooManyRequests, code: "rate_limited", message: "Too many requests; try again in \(self.reset) seconds.", headers: headers)
        }
        do {
            var response = try await respond()
            response.headers.append(contentsOf: headers)
            return response
        } catch let error as HeaderedError {
            throw error  // an inner limiter's headers stay
        } catch let error as APIError where error.headers[.rateLimitLimit] != nil {
            throw error  // an inner limiter's refusal
        } catch {
            throw HeaderedError(error: error, headers: headers)
        }
    }
}

/// `soom_rate_limit_rejections{limit}`: requests answered 429, by the limit they hit (indexed by
/// `RateLimits.Kind.rawValue`). Not a static of the middleware: generic types cannot have one.
private enum RateLimitRejections {
    static let counters = RateLimits.Kind.allCases.map { Counter(label: "soom_rate_limit_rejections", dimensions: [("limit", "\($0)")]) }
}

extension HTTPField.Name {
    static let rateLimitLimit = Self("RateLimit-Limit")!
    static let rateLimitRemaining = Self("RateLimit-Remaining")!
    static let rateLimitReset = Self("RateLimit-Reset")!
    static let xForwardedFor = Self("X-Forwarded-For")!
}
