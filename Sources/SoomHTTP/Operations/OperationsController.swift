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
        // Alive: answering is the proof (never touches the database).
        routes.on("/healthz", method: .get) { _, _ in
            JSON.response(.ok, writing: StatusBody(status: "ok"), capacity: 32)
        }
        // Ready: PostgreSQL answers.
        routes.on("/readyz", method: .get) { _, _ in
            guard await self.readiness.isReachable() else { throw APIError.databaseUnavailable }
            return JSON.response(.ok, writing: StatusBody(status: "ready"), capacity: 32)
        }
        // The Prometheus text exposition of this process's metrics.
        routes.on("/metrics", method: .get) { request, _ in
            guard let token = self.metricsToken, Self.bearer(request.headers[.authorization], matches: token) else { throw APIError.notFound }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: SoomMetrics.exposition())))
        }
        routes.on("/openapi.yaml", method: .get) { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"], body: .init(byteBuffer: OpenAPIDocument.buffer))
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
}

/// `{"status": "…"}`: the answer of `/healthz` and `/readyz`.
private struct StatusBody: JSONWritable {
    let status: String

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("status", self.status)
        writer.endObject()
    }
}

/// The repository's `openapi.yaml`, compiled into the binary.
public enum OpenAPIDocument {
    public static var bytes: [UInt8] { PackageResources.openapi_yaml }
    static let buffer = ByteBuffer(bytes: PackageResources.openapi_yaml)
}
