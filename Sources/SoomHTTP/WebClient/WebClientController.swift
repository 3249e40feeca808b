import Hummingbird

/// The web client (contract: *Operations*): its page at `/`, its service worker at `/sw.js` (a
/// worker's scope is its own path's folder, so it must live at the root), and its files under
/// `/app/`, as they are built in (see `WebAssets`), each with the client's security headers.
struct WebClientController {
    let assets: WebAssets

    func addRoutes(to routes: RouterGroup<AppRequestContext>) {
        // The page names this release's files: revalidated on every load.
        routes.on("/", method: .get) { request, _ in
            self.assets.index.response(ifNoneMatch: request.headers[.ifNoneMatch], cacheControl: "no-cache", headers: WebAssets.securityHeaders)
        }
        // Browsers check a registered worker for updates themselves; it is revalidated every time.
        routes.on("/sw.js", method: .get) { request, _ in
            guard let worker = self.assets.files["sw.js"] else { throw APIError.notFound }
            return worker.response(ifNoneMatch: request.headers[.ifNoneMatch], cacheControl: "no-cache", headers: WebAssets.securityHeaders)
        }
        routes.on("/app/{version}/{file}", method: .get) { request, context in
            let name = context.parameters.get("file") ?? ""
            guard let file = self.assets.files[name], name != "index.html" else { throw APIError.notFound }
            // Another release's version still gets today's file (during a rolling update a page
            // from one instance may ask another), but not cached for long.
            let current = context.parameters.get("version") == self.assets.version
            return file.response(
                ifNoneMatch: request.headers[.ifNoneMatch], cacheControl: current ? StaticFile.immutable : "no-cache",
                headers: WebAssets.securityHeaders)
        }
    }
}
