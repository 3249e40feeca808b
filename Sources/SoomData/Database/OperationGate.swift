import Synchronization

/// Where an operation under a deadline stands: waiting for a pooled connection, running,
/// committing, or expired. Decides, once, between a transaction's commit and its deadline.
final class OperationGate: Sendable {
    @TaskLocal static var current: OperationGate?

    private enum Phase { case waiting, running, committing, expired }
    private let phase = Mutex(Phase.waiting)

    /// The operation has its connection (a retry after a conflict keeps it running).
    func connected() {
        self.phase.withLock { phase in
            if phase == .waiting { phase = .running }
        }
    }

    /// Whether the operation may be ended as one that never got a connection.
    func expireWhileWaiting() -> Bool {
        self.phase.withLock { phase in
            guard phase == .waiting else { return false }
            phase = .expired
            return true
        }
    }

    /// Whether the transaction may commit: false once the deadline has passed.
    func enterCommit() -> Bool {
        self.phase.withLock { phase in
            guard phase == .running || phase == .waiting else { return false }
            phase = .committing
            return true
        }
    }

    /// Whether the deadline may end the operation: false once its commit is under way.
    func expire() -> Bool {
        self.phase.withLock { phase in
            guard phase == .running || phase == .waiting else { return phase == .expired }
            phase = .expired
            return true
        }
    }
}
