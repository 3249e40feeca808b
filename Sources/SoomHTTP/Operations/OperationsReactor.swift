import Hummingbird
import NIOCore
import SoomDomain

/// `GET /healthz`, `GET /readyz`, `GET /metrics` and `GET /openapi.yaml`: what operators and tools ask of a running server.
struct OperationsReactor: Reactor {
    enum Action: Sendable {
        /// Is the process up? (Never touches the database.)
        case checkLiveness
        /// Can it serve? (Asks PostgreSQL.)
        case checkReadiness
        case describeAPI
        /// The Prometheus text exposition of this process's metrics.
        case exportMetrics
    }

    enum Mutation: Sendable, Equatable {
        case alive
        case databaseChecked(reachable: Bool)
        case documentLoaded
        case metricsCollected(MetricsText)
    }

    enum State: Sendable, Equatable {
        case alive
        case ready
        /// `503 database_unavailable`.
        case notReady
        case document
        case metrics(MetricsText)
    }

    let readiness: any ReadinessProbe

    /// Nothing checked: alive (answering is the proof), not ready (until the database answers),
    /// the document (it is built in), no metrics collected.
    func initialState(for action: Action) -> State {
        switch action {
        case .checkLiveness: .alive
        case .checkReadiness: .notReady
        case .describeAPI: .document
        case .exportMetrics: .metrics(MetricsText(bytes: []))
        }
    }

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .checkLiveness: [.alive]
        case .checkReadiness: [.databaseChecked(reachable: await self.readiness.isReachable())]
        case .describeAPI: [.documentLoaded]
        case .exportMetrics: [.metricsCollected(MetricsText(bytes: SoomMetrics.exposition()))]
        }
    }

    static func reduce(state: State, mutation: Mutation) -> State {
        switch mutation {
        case .alive: .alive
        case .databaseChecked(let reachable): reachable ? .ready : .notReady
        case .documentLoaded: .document
        case .metricsCollected(let text): .metrics(text)
        }
    }
}

extension OperationsReactor.State: ResponseState {
    func response() throws -> Response {
        switch self {
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
        case .metrics(let text):
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: text.bytes)))
        }
    }
}

/// The metrics text, described by its size in logs (the mutation log would otherwise print it all).
struct MetricsText: Sendable, Equatable, CustomStringConvertible {
    let bytes: [UInt8]
    var description: String { "\(self.bytes.count) bytes" }
}
