import Logging
import ServiceLifecycle
import SoomData
import SoomDomain

/// `poll-closing`, every 5 seconds: closes the polls whose `closesAt` has passed (a story's poll
/// with its story), 500 a batch until none is left, and tells each one's voters and author
/// (`poll_closed`) in the same transaction. Voting stops at `closesAt` itself (`cast_ballot`
/// compares it with the time); the job writes the notifications, exactly once.
///
/// Safe with several instances: each batch takes its polls `FOR NO KEY UPDATE SKIP LOCKED` and
/// marks them closed in the transaction that notifies, so no poll is told twice.
struct PollClosingJob: Service {
    let cards: any CardRepository
    let startAfter: OneTimeSignal
    let logger: Logger

    func run() async throws {
        try await PeriodicJob(name: "poll-closing", every: .seconds(5), startAfter: self.startAfter, logger: self.logger) {
            while try await self.cards.closeDuePolls(limit: 500).count == 500 {}
        }.run()
    }
}
