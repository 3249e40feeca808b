import Logging
import ServiceLifecycle
import SoomData
import SoomDomain

/// `planner-statistics`, every 5 seconds: analyses the tables whose data moved on since the
/// planner last looked (`PlannerStatistics`), so that every statement keeps a plan made for the
/// tables as they are, from the first minute of a new deployment on. A round with nothing due is
/// one catalog query.
///
/// Safe with several instances: one transaction under an advisory lock; an instance that does not
/// get it skips the round.
struct PlannerStatisticsJob: Service {
    let statistics: PlannerStatistics
    let startAfter: OneTimeSignal
    let logger: Logger

    func run() async throws {
        try await PeriodicJob(name: "planner-statistics", every: .seconds(5), startAfter: self.startAfter, logger: self.logger) {
            let analysed = try await self.statistics.refresh()
            if !analysed.isEmpty { self.logger.info("analysed tables", metadata: ["tables": "\(analysed.joined(separator: ","))"]) }
        }.run()
    }
}
