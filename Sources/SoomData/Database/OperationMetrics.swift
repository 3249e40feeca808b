import Metrics

/// The database's metrics, made once: swift-metrics looks a metric up in its backend on every
/// construction, which the hot path should not pay for.
final class OperationMetrics: Sendable {
    static let shared = OperationMetrics()

    /// How an operation ended, a label of its duration.
    enum Outcome: String, CaseIterable, Sendable {
        case ok, error, unavailable, timeout
    }

    private struct Key: Hashable {
        let kind: Database.OperationKind
        let outcome: Outcome
    }

    /// Operations running or waiting for a pooled connection: pool pressure, in this instance.
    let inFlight = Meter(label: "soom_db_operations_in_flight")
    private let timers: [Key: Metrics.Timer]

    private init() {
        var timers: [Key: Metrics.Timer] = [:]
        for kind in Database.OperationKind.allCases {
            for outcome in Outcome.allCases {
                timers[Key(kind: kind, outcome: outcome)] = Metrics.Timer(
                    label: "soom_db_operation_duration", dimensions: [("kind", kind.rawValue), ("outcome", outcome.rawValue)],
                    preferredDisplayUnit: .seconds)
            }
        }
        self.timers = timers
    }

    func duration(_ kind: Database.OperationKind, _ outcome: Outcome) -> Metrics.Timer {
        self.timers[Key(kind: kind, outcome: outcome)]!
    }
}
