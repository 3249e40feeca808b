import Metrics
import Synchronization

/// The database's metrics, made once: swift-metrics looks a metric up in its backend on every
/// construction, which the hot path should not pay for.
final class OperationMetrics: Sendable {
    static let shared = OperationMetrics()

    /// Operations running or waiting for a pooled connection: pool pressure, in this instance.
    let inFlight = Meter(label: "soom_db_operations_in_flight")
    private let timers: [String: Metrics.Timer]

    private init() {
        var timers: [String: Metrics.Timer] = [:]
        for kind in Database.OperationKind.allCases {
            for outcome in ["ok", "error", "unavailable"] {
                timers["\(kind.rawValue)/\(outcome)"] = Metrics.Timer(
                    label: "soom_db_operation_duration", dimensions: [("kind", kind.rawValue), ("outcome", outcome)],
                    preferredDisplayUnit: .seconds)
            }
        }
        self.timers = timers
    }

    func duration(_ kind: Database.OperationKind, _ outcome: String) -> Metrics.Timer {
        self.timers["\(kind.rawValue)/\(outcome)"]!
    }
}
