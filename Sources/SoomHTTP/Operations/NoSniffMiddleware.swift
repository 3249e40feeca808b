import HTTPTypes
import Hummingbird

/// `X-Content-Type-Options: nosniff` on every response (the contract's convention): a browser
/// must never take an upload, a JSON error or a text body for a script or a page of another type.
/// Outermost, so that error responses and unmatched routes carry it too.
struct NoSniffMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }
}

extension HTTPField.Name {
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
}
