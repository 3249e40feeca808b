import Hummingbird
import SoomDomain

/// The routes of the contract's *Notices and clients* section. Neither needs a session.
struct NoticesController {
    let operators: any OperatorRepository
    let switches: OperatorSwitches

    func addRoutes(to routes: APIRoutes<AppRequestContext>) {
        routes.on("/notices", method: .get) { request, context in
            try await NoticeReactor(operators: self.operators, switches: self.switches)
                .respond(to: .list(try request.pageRequest()), context: context)
        }
        routes.on("/client-versions/{platform}", method: .get) { request, context in
            guard let version = request.uri.queryParameters.get("version") else {
                throw SoomError.invalidRequest("The query parameter 'version' is required.", field: "version")
            }
            return try await NoticeReactor(operators: self.operators, switches: self.switches)
                .respond(to: .checkVersion(platform: context.parameters.get("platform") ?? "", version: String(version)), context: context)
        }
    }
}
