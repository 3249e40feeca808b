import Synchronization

/// Something that happens once (the schema is migrated) and that any number of tasks can wait for.
public final class OneTimeSignal: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Void, Never>])
        case signalled
    }

    private let state = Mutex(State.waiting([]))

    public init(signalled: Bool = false) {
        if signalled { self.signal() }
    }

    /// Wakes every waiter, now and later.
    public func signal() {
        let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state = .signalled }
            if case .waiting(let waiters) = state { return waiters }
            return []
        }
        for waiter in waiters { waiter.resume() }
    }

    public func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = self.state.withLock { state -> Bool in
                switch state {
                case .signalled:
                    return true
                case .waiting(var waiters):
                    waiters.append(continuation)
                    state = .waiting(waiters)
                    return false
                }
            }
            if resumeNow { continuation.resume() }
        }
    }
}
