import Logging
import ServiceLifecycle
import SoomData
import SoomDomain

/// `popular-ranking`, every 15 seconds: computes a new generation of the popular feed's ranking
/// (the `Feed.popularSize` best-scored cards of the last 7 days) and deletes generations older
/// than an hour but the newest.
///
/// Safe with several instances: one transaction under an advisory lock; an instance that does not
/// get it skips the round.
struct PopularRankingJob: Service {
    let cards: any CardRepository
    let startAfter: OneTimeSignal
    let logger: Logger

    func run() async throws {
        try await PeriodicJob(name: "popular-ranking", every: .seconds(15), startAfter: self.startAfter, logger: self.logger) {
            try await self.cards.refreshPopularRanking(limit: Feed.popularSize)
        }.run()
    }
}
