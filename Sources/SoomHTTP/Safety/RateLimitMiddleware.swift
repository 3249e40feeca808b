import Foundation
import HTTPTypes
import Metrics
import Hummingbird
import SoomDomain

/// Applies the contract's rate limits to `/v1` routes: `RateLimit-Limit`, `RateLimit-Remaining`
/// and `RateLimit-Reset` on every response of a limited route, and `429 rate_limited` with
/// `Retry-After` once a caller has used up its window.
///
/// Added after `AuthenticationMiddleware` where there is one, so that signed-in callers are
/// counted per account; others per client address (from the connection, or the last
/// `X-Forwarded-For` entry when the server sits behind a trusted proxy).
struct RateLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let limiter: RateLimiter
    let trustForwardedFor: Bool
    let caller: @Sendable (Context) -> (account: UUID?, peerAddress: String?)

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let kind = RateLimits.kind(method: request.method, path: Substring(request.uri.path))
        let (account, peer) = self.caller(context)
        let counted: RateLimiter.Caller
        if let account {
            counted = .account(account)
        } else {
            let forwarded = self.trustForwardedFor ? Self.lastForwardedFor(request.headers) : nil
            counted = .address(RateLimiter.addressKey(forwarded ?? peer ?? "unknown"))
        }
        let decision = self.limiter.check(kind, caller: counted)
        var headers = HTTPFields()
        headers[.rateLimitLimit] = "\(decision.limit)"
        headers[.rateLimitRemaining] = "\(decision.remaining)"
        headers[.rateLimitReset] = "\(decision.reset)"
        guard decision.allowed else {
            RateLimitRejections.counters[kind.rawValue].increment()
            headers[.retryAfter] = "\(decision.reset)"
            throw APIError(
                .tooManyRequests, code: "rate_limited", message: "Too many requests; try again in \(decision.reset) seconds.",
                headers: headers)
        }
        do {
            var response = try await next(request, context)
            response.headers.append(contentsOf: headers)
            return response
        } catch {
            // The limit headers go on errors too: the contract wants them on every response of a limited route.
            let api = ErrorMiddleware<Context>.apiError(for: error, logger: context.logger)
            throw APIError(api.status, code: api.code, message: api.message, field: api.field, extra: api.extra, headers: api.headers + headers)
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
