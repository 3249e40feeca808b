import Hummingbird
import NIOCore
import SoomData

/// `GET /healthz`, `GET /readyz` and `GET /openapi.yaml`: what operators and tools ask of a running server.
struct OperationsReactor: Reactor {
    enum Action: Sendable {
        /// Is the process up? (Never touches the database.)
        case checkLiveness
        /// Can it serve? (Asks PostgreSQL.)
        case checkReadiness
        case describeAPI
    }

    enum Mutation: Sendable, Equatable {
        case alive
        case databaseChecked(reachable: Bool)
        case documentLoaded
    }

    enum State: Sendable, Equatable {
        case pending
        case alive
        case ready
        case notReady
        case document
    }

    let database: Database
    var initialState: State { .pending }

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .checkLiveness: [.alive]
        case .checkReadiness: [.databaseChecked(reachable: await self.database.isReachable())]
        case .describeAPI: [.documentLoaded]
        }
    }

    static func reduce(state: State, mutation: Mutation) -> State {
        switch mutation {
        case .alive: .alive
        case .databaseChecked(let reachable): reachable ? .ready : .notReady
        case .documentLoaded: .document
        }
    }
}

extension OperationsReactor.State: ResponseState {
    func response() throws -> Response {
        switch self {
        case .pending:
            throw IncompleteReactorState(state: "\(self)")
        case .alive:
            return try JSON.response(.ok, ["status": "ok"])
        case .ready:
            return try JSON.response(.ok, ["status": "ready"])
        case .notReady:
            return try APIError.databaseUnavailable.response()
        case .document:
            return Response(
                status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                body: .init(byteBuffer: OpenAPIDocument.buffer))
        }
    }
}
