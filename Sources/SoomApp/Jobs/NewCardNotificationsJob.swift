import Logging
import ServiceLifecycle
import SoomData
import SoomDomain

/// `new-card-notifications`, every second: turns the posts queued in `tag_notification_outbox`
/// into their `favorite_tag_used` and `following_posted` notifications, 20 posts a batch until the
/// queue is empty (so posting costs the same however many accounts follow its author or favour
/// its tags).
///
/// Safe with several instances: each batch takes its queued posts `FOR UPDATE SKIP LOCKED` and
/// deletes them in the statement that notifies.
struct NewCardNotificationsJob: Service {
    let notifications: any NotificationRepository
    let startAfter: OneTimeSignal
    let logger: Logger

    func run() async throws {
        try await PeriodicJob(name: "new-card-notifications", every: .seconds(1), startAfter: self.startAfter, logger: self.logger) {
            while try await self.notifications.deliverNewCardNotifications(limit: 20) == 20 {}
        }.run()
    }
}
