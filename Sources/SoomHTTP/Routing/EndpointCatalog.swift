import Hummingbird
import Synchronization

/// Every (method, path) the server answers: the router's own list of its routes
/// (`Router.routes`), taken once every controller has added its routes.
///
/// It lets a path that exists answer a wrong method with `405` and an `Allow` header (the router
/// alone would say 404), and lets tests check that `openapi.yaml` describes every route.
public final class EndpointCatalog: Sendable {
    public struct Endpoint: Sendable, Hashable {
        public let method: HTTPRequest.Method
        /// The full path with `{parameter}` placeholders, as in `openapi.yaml`.
        public let path: String
    }

    private let storage = Mutex<[Endpoint]>([])

    public init() {}

    public var endpoints: [Endpoint] { self.storage.withLock { $0 } }

    /// Takes the routes `router` has now as the catalogue; then registers `405 method_not_allowed`
    /// for the standard methods a known path does not serve. Called once, after the controllers.
    func load<Context: RequestContext>(from router: Router<Context>) {
        let endpoints = router.routes.map { Endpoint(method: $0.method, path: $0.path.description) }
        self.storage.withLock { $0 = endpoints }
        self.installMethodNotAllowed(on: router)
    }

    /// The methods of the endpoints whose template matches `path` (a `{parameter}` matches any
    /// one non-empty segment), in the order of `HTTPRequest.Method`'s standard list; empty for an unknown path.
    func methods(servingPath path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        let served = Set(
            self.endpoints.filter { endpoint in
                let template = endpoint.path.split(separator: "/", omittingEmptySubsequences: false)
                return template.count == segments.count
                    && zip(template, segments).allSatisfy { pattern, segment in
                        pattern.hasPrefix("{") ? !segment.isEmpty : pattern == segment
                    }
            }.map(\.method))
        return Self.standardMethods.filter(served.contains)
    }

    static let standardMethods: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete]

    /// Registers `405 method_not_allowed` for the standard methods a known path does not serve.
    private func installMethodNotAllowed<Context: RequestContext>(on router: Router<Context>) {
        let byPath = Dictionary(grouping: self.endpoints, by: \.path)
        let standard = Self.standardMethods
        for (path, endpoints) in byPath {
            let allowed = standard.filter { method in endpoints.contains { $0.method == method } }
            for method in standard where !allowed.contains(method) {
                router.on(RouterPath(path), method: method) { _, _ -> Response in
                    throw APIError.methodNotAllowed(allowed: allowed)
                }
            }
        }
    }
}
