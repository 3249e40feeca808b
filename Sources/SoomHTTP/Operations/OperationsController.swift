import Hummingbird
import NIOCore
import SoomData

/// Routes for operators and tooling, outside `/v1`: liveness, readiness, metrics and the API description.
struct OperationsController {
    let database: Database

    func addRoutes(to routes: CatalogedRoutes<AppRequestContext>) {
        routes.on(.get, "/healthz") { _, context in
            try await self.reactor.respond(to: .checkLiveness, context: context)
        }
        routes.on(.get, "/readyz") { _, context in
            try await self.reactor.respond(to: .checkReadiness, context: context)
        }
        routes.on(.get, "/metrics") { _, context in
            try await self.reactor.respond(to: .exportMetrics, context: context)
        }
        routes.on(.get, "/openapi.yaml") { _, context in
            try await self.reactor.respond(to: .describeAPI, context: context)
        }
    }

    private var reactor: OperationsReactor { OperationsReactor(database: self.database) }
}

/// The repository's `openapi.yaml`, compiled into the binary.
public enum OpenAPIDocument {
    public static var bytes: [UInt8] { PackageResources.openapi_yaml }
    static let buffer = ByteBuffer(bytes: PackageResources.openapi_yaml)
}
