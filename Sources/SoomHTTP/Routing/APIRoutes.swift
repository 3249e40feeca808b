import Hummingbird

/// The `/v1` routes of one kind of session (none, optional, required), each registered with the
/// rate limit it counts against: the route knows its limit, so nothing parses the path to find it.
///
/// `group(limit)` makes a route's group: the limit's middleware (when limits are on) and the
/// session's, in front of that route alone.
struct APIRoutes<Context: RequestContext> {
    let group: (RateLimits.Kind) -> RouterGroup<Context>

    /// Registers `handler` for `method` on `path` (under `/v1`), counted against `limit`.
    @discardableResult
    func on(
        _ path: RouterPath, method: HTTPRequest.Method, limit: RateLimits.Kind = .general,
        use handler: @Sendable @escaping (Request, Context) async throws -> some ResponseGenerator
    ) -> Self {
        self.group(limit).on(path, method: method, use: handler)
        return self
    }
}
