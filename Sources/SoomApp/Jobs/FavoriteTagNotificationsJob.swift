import Logging
import ServiceLifecycle
import SoomData
import SoomDomain

/// `favorite-tag-notifications`, every second: turns the posts queued in `tag_notification_outbox`
/// into one `favorite_tag_used` notification per favouriter, 50 posts a batch until the queue is
/// empty (so posting costs the same however many accounts favour its tags).
///
/// Safe with several instances: each batch takes its queued posts `FOR UPDATE SKIP LOCKED` and
/// deletes them in the statement that notifies.
struct FavoriteTagNotificationsJob: Service {
    let notifications: any NotificationRepository
    let startAfter: OneTimeSignal
    let logger: Logger

    func run() async throws {
        try await PeriodicJob(name: "favorite-tag-notifications", every: .seconds(1), startAfter: self.startAfter, logger: self.logger) {
            while try await self.notifications.deliverFavoriteTagNotifications(limit: 50) == 50 {}
        }.run()
    }
}
