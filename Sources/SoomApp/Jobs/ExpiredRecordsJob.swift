import Logging
import ServiceLifecycle
import SoomData
import SoomDomain

/// `expired-records`, every minute: deletes expired spent challenges, sessions and transfer codes,
/// then `Idempotency-Key` records past their 24 hours, 5,000 rows a statement until none is left.
///
/// Safe with several instances: every delete takes its rows `FOR UPDATE SKIP LOCKED`.
struct ExpiredRecordsJob: Service {
    let identity: any IdentityRepository
    let cards: any CardRepository
    let startAfter: OneTimeSignal
    let logger: Logger

    func run() async throws {
        try await PeriodicJob(name: "expired-records", every: .seconds(60), startAfter: self.startAfter, logger: self.logger) {
            while try await self.identity.purgeExpired(limit: 5000) > 0 {}
            while try await self.cards.purgeIdempotencyKeys(limit: 5000) == 5000 {}
        }.run()
    }
}
