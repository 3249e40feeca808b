import Logging
import Metrics
import ServiceLifecycle
import SoomData
import SoomDomain

/// `view-flush`, every second: writes the views and visits `ViewLog` noted since the last round
/// in one batch (`ViewRepository.record`), so counts lag a second or two, never the request.
/// A batch that fails goes back into the log for the next round; on shutdown, what is left is
/// written once more. Runs in every instance, jobs or not: each notes its own readers.
///
/// Metrics: `soom_view_pairs_written` (pairs handed to storage), `soom_view_pairs_dropped`
/// (noted while the log was full).
struct ViewFlushJob: Service {
    let views: ViewLog
    let storage: any ViewRepository
    let interval: Duration
    let startAfter: OneTimeSignal
    let logger: Logger

    func run() async throws {
        let written = Counter(label: "soom_view_pairs_written")
        let dropped = Gauge(label: "soom_view_pairs_dropped")
        @Sendable func flush() async throws {
            let batch = self.views.take()
            dropped.record(self.views.dropped)
            guard !batch.isEmpty else { return }
            do {
                try await self.storage.record(batch)
                written.increment(by: batch.cardViews.count + batch.profileVisits.count)
            } catch {
                self.views.putBack(batch)
                throw error
            }
        }
        try await PeriodicJob(name: "view-flush", every: self.interval, startAfter: self.startAfter, logger: self.logger, work: flush).run()
        if self.startAfter.isSignalled {
            do {
                try await flush()
            } catch {
                self.logger.warning("views noted before shutdown not written", metadata: ["error": "\(loggableDescription(of: error))"])
            }
        }
    }
}
