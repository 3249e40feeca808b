import Foundation
import Synchronization
import Testing

@testable import SoomDomain

@Suite("Delivering pushes: settings, quiet hours, blocks, answers, backoff, giving up")
struct PushDeliveryTests {
    static let now = Date(rfc3339: "2026-11-29T12:00:00Z")!

    static func delivery(
        _ type: NotificationType = .cardCommented, settings: NotificationSettings = .everything, blocked: Bool = false, attempt: Int = 1,
        queuedAt: Date = now, kind: PushKind = .webPush
    ) -> PushDelivery {
        let notification = AccountNotification(
            id: UUID(), type: type, createdAt: queuedAt, read: false, actor: nil, cardID: nil, tag: nil, until: nil)
        let address: PushAddress =
            switch kind {
            case .webPush: .webPush(endpoint: "https://push.test/1", p256dh: [4], auth: [1])
            case .fcm: .fcm(token: "t")
            case .apns: .apns(token: "ab")
            }
        return PushDelivery(
            id: Int64.random(in: 1...Int64.max), attempt: attempt, queuedAt: queuedAt, subscriptionID: UUID(), address: address,
            recipient: UUID(), notification: notification, settings: settings, blocked: blocked)
    }

    final class Counts: Sendable {
        let events = Mutex<[String: Int]>([:])
        var metrics: PushMetrics {
            PushMetrics(count: { event, kind in self.events.withLock { $0["\(kind.rawValue).\(event.rawValue)", default: 0] += 1 } })
        }
        subscript(_ key: String) -> Int { self.events.withLock { $0[key] ?? 0 } }
    }

    @Test("what settings, quiet hours and blocks rule out is dropped unsent; moderation notices go in quiet hours")
    func ruledOut() async throws {
        let repository = InMemoryPushRepository()
        let sender = ScriptedPushSender()
        let counts = Counts()
        let quiet = try QuietHours(start: "11:00", end: "13:00", timeZone: "UTC")
        let muted = NotificationSettings(muted: [.cardLiked], quietHours: nil)
        let sleeping = NotificationSettings(muted: [], quietHours: quiet)
        let sent = [
            Self.delivery(), Self.delivery(.cardHidden, settings: sleeping),
            Self.delivery(.cardLiked, settings: sleeping.applying(.init(quietHours: .some(nil)))),
        ]
        let dropped = [Self.delivery(.cardLiked, settings: muted), Self.delivery(.followed, settings: sleeping), Self.delivery(blocked: true)]
        repository.enqueue(sent + dropped)
        let deliver = DeliverPushes(repository: repository, senders: [.webPush: sender], metrics: counts.metrics, now: { Self.now })
        #expect(try await deliver() == 6)
        #expect(Set(sender.sent) == Set(sent.map(\.notification.id)))
        #expect(repository.completions.count == 6 && repository.completions.allSatisfy { $0.result == .done })
        #expect(counts["webpush.sent"] == 3 && counts["webpush.dropped"] == 3)
        #expect(try await deliver() == 0)
    }

    @Test("gone deletes the subscription; refused is done; retried waits (Retry-After when longer), then gives up after a day")
    func answers() async throws {
        let repository = InMemoryPushRepository()
        let gone = Self.delivery()
        let refused = Self.delivery()
        let busy = Self.delivery(attempt: 3)
        let slow = Self.delivery()
        let old = Self.delivery(queuedAt: Self.now.addingTimeInterval(-24 * 3600 + 10))
        let sender = ScriptedPushSender { notification in
            switch notification.id {
            case gone.notification.id: .gone
            case refused.notification.id: .failed
            case slow.notification.id: .retry(after: .seconds(600))
            default: .retry(after: nil)
            }
        }
        let counts = Counts()
        repository.enqueue([gone, refused, busy, slow, old])
        let deliver = DeliverPushes(repository: repository, senders: [.webPush: sender], metrics: counts.metrics, now: { Self.now })
        _ = try await deliver()
        let results = Dictionary(uniqueKeysWithValues: repository.completions.map { ($0.id, $0) })
        #expect(results[gone.id]?.result == .gone && results[gone.id]?.subscriptionID == gone.subscriptionID)
        #expect(results[refused.id]?.result == .done)
        guard case .again(let busyAt) = results[busy.id]?.result, case .again(let slowAt) = results[slow.id]?.result else {
            Issue.record("retries are not scheduled: \(results)")
            return
        }
        // Third attempt: 15 · 2² = 60 s ± 10 %; the service asked for 600 s.
        #expect((54...66).contains(busyAt.timeIntervalSince(Self.now)))
        #expect(slowAt.timeIntervalSince(Self.now) >= 600)
        #expect(results[old.id]?.result == .done, "past 24 hours of retries it is given up")
        #expect(results[busy.id]?.attempt == 3)
        #expect(counts["webpush.gone"] == 1 && counts["webpush.failed"] == 1 && counts["webpush.retried"] == 2 && counts["webpush.dropped"] == 1)
        #expect(DeliverPushes.backoff(attempt: 40, retryAfter: nil) <= 3960)
    }

    @Test("sends run side by side, up to the bound; a kind with no sender is dropped")
    func concurrency() async throws {
        let repository = InMemoryPushRepository()
        let sender = ScriptedPushSender(pause: .milliseconds(20))
        repository.enqueue((0..<40).map { _ in Self.delivery() } + [Self.delivery(kind: .apns)])
        let deliver = DeliverPushes(repository: repository, senders: [.webPush: sender], now: { Self.now })
        #expect(try await deliver(limit: 100, concurrency: 8) == 41)
        #expect(sender.sent.count == 40 && sender.mostAtOnce > 1 && sender.mostAtOnce <= 8)
        #expect(repository.completions.count == 41)
    }

    struct Policy: PushAddressPolicy {
        let offered: Set<PushKind>
        func check(_ address: PushAddress) async throws(SoomError) {
            if case .webPush(let endpoint, _, _) = address, !endpoint.hasPrefix("https://") {
                throw .validationFailed(field: "endpoint", "no")
            }
        }
    }

    @Test("subscriptions: a kind not offered and a refused endpoint are 422; five at most; the same address again is the same one")
    func subscriptions() async throws {
        let repository = InMemoryPushRepository()
        let manage = ManagePushSubscriptions(repository: repository, policy: Policy(offered: [.webPush]), now: { Self.now })
        let account = UUID()
        await #expect(throws: SoomError.self) { try await manage.subscribe(account: account, .fcm(token: "t")) }
        await #expect(throws: SoomError.self) { try await manage.subscribe(account: account, .webPush(endpoint: "http://x", p256dh: [], auth: [])) }
        var made: [PushSubscription] = []
        for index in 0..<5 {
            let saved = try await manage.subscribe(account: account, .webPush(endpoint: "https://push.test/\(index)", p256dh: [4], auth: [1]))
            #expect(saved.created)
            made.append(saved.subscription)
        }
        let again = try await manage.subscribe(account: account, .webPush(endpoint: "https://push.test/2", p256dh: [4], auth: [1]))
        #expect(!again.created && again.subscription == made[2])
        do {
            _ = try await manage.subscribe(account: account, .webPush(endpoint: "https://push.test/9", p256dh: [4], auth: [1]))
            Issue.record("a sixth subscription was accepted")
        } catch let error as SoomError {
            #expect(error.code == "push_subscription_limit")
        }
        try await manage.unsubscribe(account: account, id: made[0].id)
        await #expect(throws: SoomError.self) { try await manage.unsubscribe(account: account, id: made[0].id) }
        await #expect(throws: SoomError.self) { try await manage.unsubscribe(account: UUID(), id: made[1].id) }
        #expect(try await manage.list(account: account) == Array(made[1...]))
    }
}
