import Hummingbird
import NIOCore
import SoomDomain

/// Routes for operators and tooling, outside `/v1`: liveness, readiness, metrics and the API description.
struct OperationsController {
    /// What `/readyz` asks (the database, in production).
    let readiness: any ReadinessProbe
    /// `/metrics` answers only `Authorization: Bearer <token>`; anyone else gets the `404` of a
    /// path that does not exist (`SOOM_METRICS_TOKEN`). Without a token `/metrics` is that `404`
    /// for everyone: sign-ups, reports and hidden cards in real time are nobody's business but the
    /// operator's, so they are never served openly.
    let metricsToken: String?

    func addRoutes(to routes: RouterGroup<AppRequestContext>) {
        routes.on("/healthz", method: .get) { _, context in
            try await self.reactor.respond(to: .checkLiveness, context: context)
        }
        routes.on("/readyz", method: .get) { _, context in
            try await self.reactor.respond(to: .checkReadiness, context: context)
        }
        routes.on("/metrics", method: .get) { request, context in
            guard let token = self.metricsToken, Self.bearer(request.headers[.authorization], matches: token) else { throw APIError.notFound }
            return try await self.reactor.respond(to: .exportMetrics, context: context)
        }
        routes.on("/openapi.yaml", method: .get) { _, context in
            try await self.reactor.respond(to: .describeAPI, context: context)
        }
    }

    /// Whether the header is `Bearer <token>`, compared in constant time (no timing tells how
    /// much of a guess was right).
    static func bearer(_ header: String?, matches token: String) -> Bool {
        let given = Array((header ?? "").utf8)
        let expected = Array("Bearer \(token)".utf8)
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in expected.indices { difference |= expected[index] ^ (index < given.count ? given[index] : 0) }
        return difference == 0
    }

    private var reactor: OperationsReactor { OperationsReactor(readiness: self.readiness) }
}

/// The repository's `openapi.yaml`, compiled into the binary.
public enum OpenAPIDocument {
    public static var bytes: [UInt8] { PackageResources.openapi_yaml }
    static let buffer = ByteBuffer(bytes: PackageResources.openapi_yaml)
}
