import Logging
import ServiceLifecycle
import SoomData
import SoomDomain

/// `following-inbox`, every 5 seconds: fills the following inboxes opened a request deadline ago
/// and makes them ready, and keeps every inbox within its horizon (`FollowingInbox`). A round
/// with nothing due is two index probes and a `min`.
///
/// Safe with several instances: readers are taken `FOR NO KEY UPDATE SKIP LOCKED`.
struct FollowingInboxJob: Service {
    let inbox: FollowingInbox
    let startAfter: OneTimeSignal
    let logger: Logger

    func run() async throws {
        try await PeriodicJob(name: "following-inbox", every: .seconds(5), startAfter: self.startAfter, logger: self.logger) {
            let ready = try await self.inbox.fill()
            if ready > 0 { self.logger.info("following inboxes ready", metadata: ["readers": "\(ready)"]) }
            let trimmed = try await self.inbox.trim()
            if trimmed > 0 { self.logger.debug("following inbox rows past the horizon deleted", metadata: ["rows": "\(trimmed)"]) }
        }.run()
    }
}
