import Hummingbird
import SoomDomain

/// Reads `Authorization: Bearer <token>` and puts the caller into the context.
///
/// With `required` (the default), a missing or bad token is `401 unauthorized`; otherwise a
/// request without a token passes through anonymously (for routes that accept an optional session).
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    let authenticate: Authenticate
    var required = true

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            if self.required { throw SoomError.unauthorized }
            return try await next(request, context)
        }
        guard header.count > 7, header.prefix(7).lowercased() == "bearer " else { throw SoomError.unauthorized }
        var context = context
        context.caller = try await self.authenticate(bearer: header.dropFirst(7).drop(while: { $0 == " " }))
        return try await next(request, context)
    }
}
