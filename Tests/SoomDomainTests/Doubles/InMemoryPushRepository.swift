import Foundation
import SoomDomain
import Synchronization

/// A `PushRepository` in memory: a queue of deliveries handed out once per claim, and what each
/// completion said; subscriptions with the same limit rule as PostgreSQL's.
final class InMemoryPushRepository: PushRepository {
    struct State {
        var queue: [PushDelivery] = []
        var completions: [PushCompletion] = []
        var subscriptions: [(account: UUID, address: PushAddress, subscription: PushSubscription)] = []
        var key: [UInt8]?
    }

    let state = Mutex(State())

    func enqueue(_ deliveries: [PushDelivery]) { self.state.withLock { $0.queue += deliveries } }
    var completions: [PushCompletion] { self.state.withLock { $0.completions } }

    func subscribe(account: UUID, _ address: PushAddress, limit: Int, at now: Date) async throws -> (
        subscription: PushSubscription, created: Bool
    )? {
        self.state.withLock { state in
            if let kept = state.subscriptions.first(where: { $0.account == account && $0.address == address }) { return (kept.subscription, false) }
            guard state.subscriptions.filter({ $0.account == account }).count < limit else { return nil }
            state.subscriptions.removeAll { $0.address == address }
            let subscription = PushSubscription(id: UUID(), kind: address.kind, createdAt: now)
            state.subscriptions.append((account, address, subscription))
            return (subscription, true)
        }
    }

    func subscriptions(of account: UUID) async throws -> [PushSubscription] {
        self.state.withLock { $0.subscriptions.filter { $0.account == account }.map(\.subscription) }
    }

    func unsubscribe(account: UUID, id: UUID) async throws -> Bool {
        self.state.withLock { state in
            let before = state.subscriptions.count
            state.subscriptions.removeAll { $0.account == account && $0.subscription.id == id }
            return state.subscriptions.count < before
        }
    }

    func claimDeliveries(limit: Int, lease: Duration) async throws -> [PushDelivery] {
        self.state.withLock { state in
            let taken = Array(state.queue.prefix(limit))
            state.queue.removeFirst(taken.count)
            return taken
        }
    }

    func complete(_ completions: [PushCompletion]) async throws {
        self.state.withLock { $0.completions += completions }
    }

    func queue() async throws -> (depth: Int, oldest: Date?) {
        self.state.withLock { ($0.queue.count, $0.queue.map(\.queuedAt).min()) }
    }

    func vapidKey(orMake make: @Sendable () -> [UInt8]) async throws -> [UInt8] {
        let fresh = make()
        return self.state.withLock { state in
            if state.key == nil { state.key = fresh }
            return state.key!
        }
    }
}

/// A `PushSender` that answers what it is told per notification, records what it was given, and
/// counts how many sends ran at once.
final class ScriptedPushSender: PushSender {
    let answers: @Sendable (AccountNotification) -> PushOutcome
    private let state = Mutex<(sent: [UUID], running: Int, most: Int)>(([], 0, 0))
    let pause: Duration

    init(pause: Duration = .zero, answers: @escaping @Sendable (AccountNotification) -> PushOutcome = { _ in .delivered }) {
        self.answers = answers
        self.pause = pause
    }

    var sent: [UUID] { self.state.withLock { $0.sent } }
    var mostAtOnce: Int { self.state.withLock { $0.most } }

    func send(_ notification: AccountNotification, to address: PushAddress) async -> PushOutcome {
        self.state.withLock { state in
            state.sent.append(notification.id)
            state.running += 1
            state.most = max(state.most, state.running)
        }
        if self.pause > .zero { try? await Task.sleep(for: self.pause) }
        self.state.withLock { $0.running -= 1 }
        return self.answers(notification)
    }
}
