import Logging
import ServiceLifecycle
import SoomData
import SoomDomain

/// `popular-ranking`, every 15 seconds: computes a new generation of the popular feed's ranking
/// (the `Feed.popularSize` best-scored cards of the last 7 days) and deletes generations older
/// than an hour but the newest.
///
/// A round ranks the candidates the last round kept and the cards that changed since, not every
/// card of the week (`PopularRankingStatements`, migration 0016). This instance's first round reads
/// every card (`rescan`): what changed while no instance ran, or before a crash emptied the
/// unlogged change list, is then in the ranking at once rather than at the next rescan.
///
/// Safe with several instances: one transaction under an advisory lock; an instance that does not
/// get it skips the round.
struct PopularRankingJob: Service {
    let cards: any CardRepository
    let startAfter: OneTimeSignal
    let logger: Logger

    func run() async throws {
        let rescanned = OneTimeSignal()
        try await PeriodicJob(name: "popular-ranking", every: .seconds(15), startAfter: self.startAfter, logger: self.logger) {
            let rescan = !rescanned.isSignalled
            try await self.cards.refreshPopularRanking(limit: Feed.popularSize, rescan: rescan)
            if rescan { rescanned.signal() }
        }.run()
    }
}
