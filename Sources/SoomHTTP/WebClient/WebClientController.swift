import Hummingbird

/// The web client (contract: *Operations*): its page at `/` and its files under `/app/`.
struct WebClientController {
    let assets: WebAssets

    func addRoutes(to routes: RouterGroup<AppRequestContext>) {
        routes.on("/", method: .get) { request, context in
            try await self.reactor.run(.showPage(ifNoneMatch: request.headers[.ifNoneMatch]), logger: context.logger).response(from: self.assets)
        }
        routes.on("/app/{version}/{file}", method: .get) { request, context in
            let version = context.parameters.get("version") ?? ""
            let file = context.parameters.get("file") ?? ""
            return try await self.reactor.run(
                .showFile(version: version, name: file, ifNoneMatch: request.headers[.ifNoneMatch]), logger: context.logger
            ).response(from: self.assets)
        }
    }

    private var reactor: WebClientReactor { WebClientReactor(assets: self.assets) }
}
