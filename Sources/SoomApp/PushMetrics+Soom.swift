import Metrics
import SoomDomain

extension PushMetrics {
    /// `soom_push_deliveries_total{provider, outcome}` (sent, failed, retried, dropped, gone) and
    /// `soom_push_latency_seconds{provider}`, from a notification's making to its acceptance.
    static let soom = PushMetrics(
        count: { event, kind in
            Counter(label: "soom_push_deliveries_total", dimensions: [("provider", kind.rawValue), ("outcome", event.rawValue)]).increment()
        },
        latency: { kind, seconds in
            Metrics.Timer(label: "soom_push_latency_seconds", dimensions: [("provider", kind.rawValue)]).recordSeconds(seconds)
        })
}
