import Foundation
import Logging
import ServiceLifecycle
import SoomData
import SoomDomain

/// `retention`, every minute: what PRIVACY.md promises. Deletes notifications and withdrawal
/// records after 30 days (`Retention`), and uploads that no card or profile uses 24 hours after
/// they were made (`ImageUploadRules.unusedLifetime`), in batches until none is left.
///
/// Safe with several instances: every delete takes its rows `FOR UPDATE SKIP LOCKED` (a post
/// using an upload holds a lock on its row, so it is skipped too).
struct RetentionJob: Service {
    let notifications: any NotificationRepository
    let identity: any IdentityRepository
    let images: any ImageStore
    let startAfter: OneTimeSignal
    let logger: Logger

    func run() async throws {
        try await PeriodicJob(name: "retention", every: .seconds(60), startAfter: self.startAfter, logger: self.logger) {
            let now = Date()
            while try await self.notifications.purge(createdBefore: now - Retention.notifications, limit: 5000) == 5000 {}
            while try await self.identity.purgeWithdrawals(before: now - Retention.withdrawals, limit: 5000) == 5000 {}
            while try await self.images.purgeUnused(createdBefore: now - ImageUploadRules.unusedLifetime, limit: 200) == 200 {}
        }.run()
    }
}
