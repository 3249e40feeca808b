import NIOCore
import NIOPosix
import Synchronization

/// Deadlines kept in a table and checked by one coarse timer, rather than a timer each.
///
/// Every database operation has a deadline, and nearly every one finishes long before it. A NIO
/// timer per deadline cost, per operation, two cross-thread wake-ups of an event loop (one to arm
/// it, from a thread of the concurrency pool, and one more for the `noConnection` timer) and the
/// cancellations: about a tenth of the server's CPU on a feed page read from PostgreSQL (perf, the
/// 2-core VM). Here arming and cancelling are an insert and a removal under a lock. One timer, on
/// one event loop, runs only while deadlines are pending (starting it again after a pause is the
/// only cross-thread wake-up), and runs each due action about `resolution` after its time at most
/// (plus whatever else that loop is busy with).
///
/// Actions run on that event loop, outside the lock; they may schedule further deadlines.
final class DeadlineWheel: Sendable {
    /// A scheduled action, to `cancel`.
    struct Token: Sendable {
        fileprivate let id: UInt64
    }

    /// The one the database layer uses: about 50 ms late at most, against deadlines of seconds.
    static let shared = DeadlineWheel(resolution: .milliseconds(50), loop: MultiThreadedEventLoopGroup.singleton.next())

    private struct Entry {
        let due: NIODeadline
        let action: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var lastID: UInt64 = 0
        /// Whether a tick is scheduled (or about to be, by the `schedule` that set this); only one is.
        var ticking = false
    }

    private let state = Mutex(State())
    private let resolution: TimeAmount
    private let loop: any EventLoop

    /// `loop` must outlive the wheel (the singleton group's loops are never shut down): a tick
    /// that cannot be scheduled would leave every later deadline unchecked.
    init(resolution: TimeAmount, loop: any EventLoop) {
        self.resolution = resolution
        self.loop = loop
    }

    /// Runs `action` once `delay` has passed, unless `cancel`led first: about `resolution` later at
    /// most, plus whatever else the wheel's event loop is busy with.
    func schedule(in delay: TimeAmount, _ action: @escaping @Sendable () -> Void) -> Token {
        let due = NIODeadline.now() + delay
        let (token, startTicking) = self.state.withLock { state in
            state.lastID &+= 1
            state.entries[state.lastID] = Entry(due: due, action: action)
            defer { state.ticking = true }
            return (Token(id: state.lastID), !state.ticking)
        }
        if startTicking { self.scheduleTick() }
        return token
    }

    /// Forgets `token`'s action; a no-op once it has run.
    func cancel(_ token: Token) {
        self.state.withLock { _ = $0.entries.removeValue(forKey: token.id) }
    }

    /// How many actions are waiting (for tests).
    var pending: Int { self.state.withLock { $0.entries.count } }

    /// Whether the timer is running (for tests: it stops when nothing is pending).
    var isTicking: Bool { self.state.withLock { $0.ticking } }

    private func scheduleTick() {
        self.loop.scheduleTask(in: self.resolution) { self.tick() }
    }

    private func tick() {
        let now = NIODeadline.now()
        let (due, keepTicking) = self.state.withLock { state -> ([@Sendable () -> Void], Bool) in
            let dueIDs = state.entries.compactMap { $0.value.due <= now ? $0.key : nil }
            let due = dueIDs.compactMap { state.entries.removeValue(forKey: $0)?.action }
            state.ticking = !state.entries.isEmpty
            return (due, state.ticking)
        }
        if keepTicking { self.scheduleTick() }
        for action in due { action() }
    }
}
