import HTTPTypes
import Hummingbird

/// `Cache-Control: no-store` on every `/v1` answer that does not say how it may be cached
/// itself: a session's feed, profile, notifications or token must never be kept by a browser,
/// a shared proxy or a disk cache where the next user of the device or the proxy finds it.
/// Images say their own (`public, immutable`: they are public by their unguessable IDs) and keep it.
/// Outermost, so that errors and unmatched `/v1` paths carry it too.
struct NoStoreMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        if response.headers[.cacheControl] == nil, request.uri.path.hasPrefix("/v1/") || request.uri.path == "/v1" {
            response.headers[.cacheControl] = "no-store"
        }
        return response
    }
}
