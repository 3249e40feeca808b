import Logging
import ServiceLifecycle
import SoomData
import SoomDomain

/// `operator-switches`, every `interval` (two seconds): reads the operators' switches
/// (maintenance, client versions, refused words) in one statement and hands them to this
/// instance's `OperatorSwitches`, so an operator's change reaches every instance within that
/// time. Runs in every instance, jobs or not: each must know about maintenance. A failed read
/// keeps what was last read.
struct OperatorSwitchesRefresher: Service {
    let operators: any OperatorRepository
    let switches: OperatorSwitches
    let interval: Duration
    let startAfter: OneTimeSignal
    let logger: Logger

    func run() async throws {
        try await PeriodicJob(name: "operator-switches", every: self.interval, startAfter: self.startAfter, logger: self.logger) {
            self.switches.update(try await self.operators.switches())
        }.run()
    }
}
