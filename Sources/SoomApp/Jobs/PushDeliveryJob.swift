import Foundation
import Logging
import Metrics
import ServiceLifecycle
import SoomData
import SoomDomain
import Synchronization

/// `push-delivery`: sends the queued pushes (`DeliverPushes`), round after round while the queue
/// has due deliveries, resting `interval` when it has none; every 10 seconds it records the
/// queue's depth and the age of its oldest delivery (`soom_push_queue_depth`,
/// `soom_push_queue_age_seconds`). On every instance: they share the queue through
/// `FOR UPDATE SKIP LOCKED` claims.
struct PushDeliveryJob: Service {
    let deliver: DeliverPushes
    let repository: any PushRepository
    let interval: Duration
    let startAfter: OneTimeSignal
    let logger: Logger

    func run() async throws {
        let depth = Gauge(label: "soom_push_queue_depth")
        let age = Gauge(label: "soom_push_queue_age_seconds")
        let clock = ContinuousClock()
        let measured = Mutex(clock.now - .seconds(10))
        try await PeriodicJob(name: "push-delivery", every: self.interval, startAfter: self.startAfter, logger: self.logger) {
            while try await self.deliver() > 0 {}
            let due = measured.withLock { last in
                guard clock.now - last >= .seconds(10) else { return false }
                last = clock.now
                return true
            }
            if due {
                let queue = try await self.repository.queue()
                depth.record(queue.depth)
                age.record(queue.oldest.map { max(0, Date().timeIntervalSince($0)) } ?? 0)
            }
        }.run()
    }
}
