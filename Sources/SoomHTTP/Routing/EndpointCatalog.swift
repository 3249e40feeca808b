import Hummingbird
import Synchronization

/// Every (method, path) the server answers, recorded as routes are added.
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

    func record(_ method: HTTPRequest.Method, _ path: String) {
        self.storage.withLock { $0.append(Endpoint(method: method, path: path)) }
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
    func installMethodNotAllowed<Context: RequestContext>(on router: Router<Context>) {
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

/// A router group that records its routes in an `EndpointCatalog`.
struct CatalogedRoutes<Context: RequestContext> {
    let group: RouterGroup<Context>
    let prefix: String
    let catalog: EndpointCatalog

    @discardableResult
    func on(
        _ method: HTTPRequest.Method, _ path: String = "", use handler: @escaping @Sendable (Request, Context) async throws -> Response
    ) -> Self {
        self.catalog.record(method, self.prefix + path)
        self.group.on(RouterPath(path), method: method, use: handler)
        return self
    }
}
