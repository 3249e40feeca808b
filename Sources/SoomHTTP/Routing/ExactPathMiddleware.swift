import Hummingbird

/// Matches paths exactly as sent, before any route sees them (the contract's *Paths are matched
/// exactly as sent*):
/// - a path with an empty segment (`//`), a `.` or `..` segment (also percent-encoded, `%2e`), or
///   a trailing `/` is `404 not_found`. The router alone skips empty segments: `/v1//accounts`
///   would reach the sign-up route under a path the contract does not have;
/// - a method the router has no table for (`TRACE`, `CONNECT`, `OPTIONS`, `HEAD`, …) on a known
///   path is `405 method_not_allowed` with `Allow`, and `404` elsewhere. (The standard methods a
///   known path lacks are answered by the router: `EndpointCatalog.load(from:)`.)
struct ExactPathMiddleware<Context: RequestContext>: RouterMiddleware {
    let catalog: EndpointCatalog

    /// The methods routes are registered for; every other method is answered here.
    static var routedMethods: Set<HTTPRequest.Method> { Set(EndpointCatalog.standardMethods) }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard Self.isExact(path) else { throw APIError.notFound }
        guard Self.routedMethods.contains(request.method) else {
            let allowed = self.catalog.methods(servingPath: path)
            guard !allowed.isEmpty else { throw APIError.notFound }
            throw APIError.methodNotAllowed(allowed: allowed)
        }
        return try await next(request, context)
    }

    /// `/` alone, or `/`-separated segments that are neither empty nor `.`/`..` (as sent or percent-decoded).
    static func isExact(_ path: String) -> Bool {
        guard path.first == "/" else { return false }
        guard path != "/" else { return true }
        for segment in path.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            if segment.isEmpty || Self.isDotSegment(segment) { return false }
        }
        return true
    }

    /// `.` or `..`, with any of the dots percent-encoded (`%2e`, `%2E`).
    static func isDotSegment(_ segment: Substring) -> Bool {
        var rest = segment
        var dots = 0
        while !rest.isEmpty, dots < 2 {
            if rest.hasPrefix(".") {
                rest = rest.dropFirst()
            } else if rest.prefix(3).lowercased() == "%2e" {
                rest = rest.dropFirst(3)
            } else {
                return false
            }
            dots += 1
        }
        return rest.isEmpty && dots > 0
    }
}
