import Hummingbird

/// The `/v1` routes of one kind of session (none, optional, required), each registered with the
/// rate limit it counts against and whether maintenance refuses it: the route knows both, so
/// nothing parses the path to find them.
///
/// `group(limit, refusedInMaintenance)` makes a route's group: the limit's middleware (when limits
/// are on), the session's, and `MaintenanceMiddleware` when the route is refused during
/// maintenance, in front of that route alone.
struct APIRoutes<Context: RequestContext> {
    let group: (RateLimits.Kind, Bool) -> RouterGroup<Context>

    /// Registers `handler` for `method` on `path` (under `/v1`), counted against `limit`. A write
    /// (anything but `GET`) is refused during maintenance unless `servedInMaintenance`.
    @discardableResult
    func on(
        _ path: RouterPath, method: HTTPRequest.Method, limit: RateLimits.Kind = .general, servedInMaintenance: Bool = false,
        use handler: @Sendable @escaping (Request, Context) async throws -> some ResponseGenerator
    ) -> Self {
        let refused = method != .get && method != .head && !servedInMaintenance
        self.group(limit, refused).on(path, method: method, use: handler)
        return self
    }
}
