import Hummingbird
import NIOCore
import SoomData

/// Routes for operators and tooling, outside `/v1`: liveness, readiness and the API description.
struct OperationsController {
    let database: Database

    func addRoutes(to routes: CatalogedRoutes<AppRequestContext>) {
        routes.on(.get, "/healthz") { _, _ in
            try JSON.response(.ok, ["status": "ok"])
        }
        routes.on(.get, "/readyz") { _, _ in
            guard await self.database.isReachable() else { throw APIError.databaseUnavailable }
            return try JSON.response(.ok, ["status": "ready"])
        }
        routes.on(.get, "/openapi.yaml") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: OpenAPIDocument.bytes)))
        }
    }
}

/// The repository's `openapi.yaml`, compiled into the binary.
public enum OpenAPIDocument {
    public static var bytes: [UInt8] { PackageResources.openapi_yaml }
}
