import Hummingbird

/// The web client (contract: *Operations*): its page at `/` and its files under `/app/`.
struct WebClientController {
    func addRoutes(to routes: CatalogedRoutes<AppRequestContext>) {
        routes.on(.get, "/") { request, context in
            try await WebClientReactor().respond(to: .showPage(ifNoneMatch: request.headers[.ifNoneMatch]), context: context)
        }
        routes.on(.get, "/app/{version}/{file}") { request, context in
            let version = context.parameters.get("version") ?? ""
            let file = context.parameters.get("file") ?? ""
            return try await WebClientReactor().respond(
                to: .showFile(version: version, name: file, ifNoneMatch: request.headers[.ifNoneMatch]), context: context)
        }
    }
}
