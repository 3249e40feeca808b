import Foundation
import Logging

/// One round of the push delivery service: claims due deliveries, sends those the recipients'
/// settings allow now (several at once), and writes back what became of each.
///
/// - Not sent, and done with: a notification whose type the recipient switched off, one that falls
///   in their quiet hours (moderation notices always go), one across a block, one queued more
///   than `giveUpAfter` ago (24 hours), one its service refused for good.
/// - Sent: done; the subscription gone (`404`/`410`): deleted with its deliveries.
/// - Retried: `429`, `5xx`, timeouts and unreachable services, after 15 s, 30 s, 1 min … up to
///   an hour (doubling, with a tenth of spread), or the service's `Retry-After` when longer.
public struct DeliverPushes: Sendable {
    let repository: any PushRepository
    let senders: [PushKind: any PushSender]
    let now: @Sendable () -> Date
    let metrics: PushMetrics
    /// How long a claimed delivery is kept from others: well beyond a send's timeout.
    let lease: Duration
    /// The first retry's wait, in seconds; each later one doubles it.
    let retryBase: TimeInterval

    public static let giveUpAfter: TimeInterval = 24 * 3600

    public init(
        repository: any PushRepository, senders: [PushKind: any PushSender], metrics: PushMetrics = PushMetrics(),
        lease: Duration = .seconds(60), retryBase: TimeInterval = 15, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.repository = repository
        self.senders = senders
        self.metrics = metrics
        self.lease = lease
        self.retryBase = retryBase
        self.now = now
    }

    /// One round: claims up to `limit`, sends up to `concurrency` at once; returns how many it
    /// claimed. By default one wave (64): the round ends, and its completions are written, within
    /// a send's timeout or two, far inside the lease, so no other instance sends them again.
    public func callAsFunction(limit: Int = 64, concurrency: Int = 64) async throws -> Int {
        let deliveries = try await self.repository.claimDeliveries(limit: limit, lease: self.lease)
        guard !deliveries.isEmpty else { return 0 }
        let completions = await withTaskGroup(of: PushCompletion.self, returning: [PushCompletion].self) { group in
            var completions: [PushCompletion] = []
            completions.reserveCapacity(deliveries.count)
            var pending = deliveries[...]
            func start() {
                guard let delivery = pending.popFirst() else { return }
                group.addTask { await self.handle(delivery) }
            }
            for _ in 0..<min(concurrency, deliveries.count) { start() }
            while let completion = await group.next() {
                completions.append(completion)
                start()
            }
            return completions
        }
        try await self.repository.complete(completions)
        return deliveries.count
    }

    private func handle(_ delivery: PushDelivery) async -> PushCompletion {
        let kind = delivery.address.kind
        func completion(_ result: PushCompletion.Result) -> PushCompletion {
            PushCompletion(id: delivery.id, attempt: delivery.attempt, subscriptionID: delivery.subscriptionID, result: result)
        }
        let now = self.now()
        if delivery.blocked || !delivery.settings.pushes(delivery.notification.type, at: now) {
            self.metrics.count(.dropped, kind)
            return completion(.done)
        }
        guard let sender = self.senders[kind] else {
            // A provider switched off since the subscription was made: nothing can send it.
            self.metrics.count(.dropped, kind)
            return completion(.done)
        }
        switch await sender.send(delivery.notification, to: delivery.address) {
        case .delivered:
            self.metrics.count(.sent, kind)
            self.metrics.latency(kind, now.timeIntervalSince(delivery.notification.createdAt))
            return completion(.done)
        case .gone:
            self.metrics.count(.gone, kind)
            return completion(.gone)
        case .failed:
            self.metrics.count(.failed, kind)
            return completion(.done)
        case .retry(let after):
            let at = now.addingTimeInterval(Self.backoff(attempt: delivery.attempt, retryAfter: after, base: self.retryBase))
            guard at.timeIntervalSince(delivery.queuedAt) < Self.giveUpAfter else {
                self.metrics.count(.dropped, kind)
                return completion(.done)
            }
            self.metrics.count(.retried, kind)
            return completion(.again(at: at))
        }
    }

    /// Seconds to wait before the next attempt: base · 2^(attempt−1), at most an hour, ±10 %;
    /// never sooner than the service's `Retry-After`.
    static func backoff(attempt: Int, retryAfter: Duration?, base: TimeInterval = 15) -> TimeInterval {
        let doubled = min(3600, base * pow(2, Double(max(0, min(attempt - 1, 12)))))
        let spread = doubled * Double.random(in: 0.9...1.1)
        let asked = retryAfter.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 } ?? 0
        return max(spread, asked)
    }
}
