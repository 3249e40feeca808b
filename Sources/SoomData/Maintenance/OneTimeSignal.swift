import Synchronization

/// Something that happens once (the schema is migrated) and that background jobs check before they start.
public final class OneTimeSignal: Sendable {
    private let signalled: Mutex<Bool>

    public init(signalled: Bool = false) {
        self.signalled = Mutex(signalled)
    }

    /// Whether `signal()` has been called.
    public var isSignalled: Bool { self.signalled.withLock { $0 } }

    public func signal() {
        self.signalled.withLock { $0 = true }
    }
}
