import Foundation

/// What the delivery service reports, by provider: the composition root turns these into
/// `soom_push_*` metrics; the default reports nowhere.
public struct PushMetrics: Sendable {
    public enum Event: String, Sendable, CaseIterable {
        /// Accepted by the push service.
        case sent
        /// Refused for good by the push service.
        case failed
        /// To be tried again later.
        case retried
        /// Not sent: switched off, quiet hours, a block, a provider gone, or 24 hours of retries.
        case dropped
        /// The service says the subscription is gone: deleted.
        case gone
    }

    let onCount: @Sendable (Event, PushKind) -> Void
    let onLatency: @Sendable (PushKind, TimeInterval) -> Void

    public init(
        count: @escaping @Sendable (Event, PushKind) -> Void = { _, _ in },
        latency: @escaping @Sendable (PushKind, TimeInterval) -> Void = { _, _ in }
    ) {
        self.onCount = count
        self.onLatency = latency
    }

    func count(_ event: Event, _ kind: PushKind) { self.onCount(event, kind) }
    /// From the notification's making to the service's acceptance.
    func latency(_ kind: PushKind, _ seconds: TimeInterval) { self.onLatency(kind, seconds) }
}
