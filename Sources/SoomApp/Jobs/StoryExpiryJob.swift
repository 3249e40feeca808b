import Logging
import ServiceLifecycle
import SoomData
import SoomDomain

/// `story-expiry`, every 30 seconds: deletes expired stories in batches of 1,000 with their
/// effects (parents' comment counts, authors' card counts, tag usage) until none is left.
///
/// Safe with several instances: each batch takes its cards `FOR UPDATE SKIP LOCKED`, in the lock
/// order of every card writer (authors, then cards), so instances share the work.
struct StoryExpiryJob: Service {
    let cards: any CardRepository
    let startAfter: OneTimeSignal
    let logger: Logger

    func run() async throws {
        try await PeriodicJob(name: "story-expiry", every: .seconds(30), startAfter: self.startAfter, logger: self.logger) {
            while try await self.cards.sweepExpiredStories(limit: 1000) == 1000 {}
        }.run()
    }
}
