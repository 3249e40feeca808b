import Metrics
import SoomDomain

extension PushMetrics {
    /// `soom_push_deliveries_total{provider, outcome}` (sent, failed, retried, dropped, gone) and
    /// `soom_push_latency_seconds{provider}`, from a notification's making to its acceptance. The
    /// handles are made once, not looked up for every delivery.
    static let soom: PushMetrics = {
        var counters: [String: Counter] = [:]
        var timers: [PushKind: Metrics.Timer] = [:]
        for kind in PushKind.allCases {
            timers[kind] = Metrics.Timer(label: "soom_push_latency_seconds", dimensions: [("provider", kind.rawValue)])
            for event in Event.allCases {
                counters["\(kind.rawValue).\(event.rawValue)"] = Counter(
                    label: "soom_push_deliveries_total", dimensions: [("provider", kind.rawValue), ("outcome", event.rawValue)])
            }
        }
        let (allCounters, allTimers) = (counters, timers)
        return PushMetrics(
            count: { event, kind in allCounters["\(kind.rawValue).\(event.rawValue)"]?.increment() },
            latency: { kind, seconds in allTimers[kind]?.recordSeconds(seconds) })
    }()
}
