import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import SoomData

/// The contract of the database layer's deadlines (`DeadlineWheel`): an action runs once, no
/// sooner than its delay and at most about one resolution later; a cancelled one never runs; the
/// one timer runs only while something is pending. No database: a wheel of its own per test.
@Suite("Deadline wheel")
struct DeadlineWheelTests {
    /// What the actions saw, shared with them.
    private final class Record<Value: Sendable>: Sendable {
        private let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
        func withLock<T: Sendable>(_ body: (inout Value) -> T) -> T { self.value.withLock { body(&$0) } }
    }

    private static func wheel(_ resolution: TimeAmount = .milliseconds(10)) -> DeadlineWheel {
        DeadlineWheel(resolution: resolution, loop: MultiThreadedEventLoopGroup.singleton.next())
    }

    /// Waits until `condition` holds; an issue if it does not within `limit`.
    private static func eventually(
        within limit: Duration = .seconds(10), _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
    ) async throws {
        let started = ContinuousClock.now
        while !condition() {
            guard ContinuousClock.now - started < limit else {
                Issue.record("not within \(limit): \(what)", sourceLocation: sourceLocation)
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test("an action runs once, after its delay, and the timer stops when nothing is left")
    func runsAfterItsDelay() async throws {
        let wheel = Self.wheel()
        let runs = Record<[ContinuousClock.Instant]>([])
        let started = ContinuousClock.now
        _ = wheel.schedule(in: .milliseconds(150)) { runs.withLock { $0.append(.now) } }
        try await Self.eventually("the action ran") { runs.withLock { !$0.isEmpty } }
        let ran = try #require(runs.withLock { $0.first })
        // Not before its delay (measured from before it was scheduled). How late is not checked:
        // with the whole suite on two cores, this task itself may wake seconds late.
        #expect(ran - started >= .milliseconds(150), "ran \(ran - started) after it was scheduled")
        try await Self.eventually("the timer stopped") { !wheel.isTicking }
        #expect(wheel.pending == 0)
        try await Task.sleep(for: .milliseconds(50))
        #expect(runs.withLock { $0.count } == 1)
    }

    @Test("a cancelled action never runs; the others do")
    func cancelled() async throws {
        let wheel = Self.wheel()
        let ran = Record<Set<Int>>([])
        // The even ones are due in 10 s, so a stalled test cannot see them run before it cancels them.
        let tokens = (0..<10).map { index in
            wheel.schedule(in: .milliseconds(index.isMultiple(of: 2) ? 10_000 : 30)) { _ = ran.withLock { $0.insert(index) } }
        }
        #expect(wheel.isTicking && wheel.pending >= 5)
        for index in stride(from: 0, to: 10, by: 2) { wheel.cancel(tokens[index]) }
        try await Self.eventually("the kept actions ran and the timer stopped") { wheel.pending == 0 && !wheel.isTicking }
        #expect(ran.withLock { $0 } == [1, 3, 5, 7, 9])
        // Cancelling what already ran changes nothing, and nothing runs after.
        wheel.cancel(tokens[1])
        try await Task.sleep(for: .milliseconds(60))
        #expect(ran.withLock { $0 } == [1, 3, 5, 7, 9] && wheel.pending == 0)
    }

    @Test("an action may schedule another; the timer starts again after it stopped")
    func nestedAndRestarted() async throws {
        let wheel = Self.wheel()
        let order = Record<[String]>([])
        _ = wheel.schedule(in: .milliseconds(20)) {
            order.withLock { $0.append("first") }
            _ = wheel.schedule(in: .milliseconds(20)) { order.withLock { $0.append("second") } }
        }
        try await Self.eventually("both actions ran") { order.withLock { $0.count } == 2 }
        try await Self.eventually("the timer stopped") { !wheel.isTicking }
        _ = wheel.schedule(in: .milliseconds(10)) { order.withLock { $0.append("third") } }
        try await Self.eventually("the third action ran") { order.withLock { $0.count } == 3 }
        #expect(order.withLock { $0 } == ["first", "second", "third"])
    }

    @Test("many tasks arming and cancelling at once: exactly the kept actions run, each once")
    func concurrent() async throws {
        let wheel = Self.wheel(.milliseconds(5))
        let runs = Record<[Int: Int]>([:])
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for step in 0..<500 {
                        let index = task * 1000 + step
                        let token = wheel.schedule(in: .milliseconds(Int64(step % 7))) { runs.withLock { $0[index, default: 0] += 1 } }
                        if step % 3 != 0 { wheel.cancel(token) }
                    }
                }
            }
        }
        try await Self.eventually("every kept action ran and the timer stopped") { wheel.pending == 0 && !wheel.isTicking }
        let kept = Set((0..<8).flatMap { task in stride(from: 0, to: 500, by: 3).map { task * 1000 + $0 } })
        let ran = runs.withLock { $0 }
        // A cancel may come after its action ran (delays of 0-6 ms), so a cancelled one may have
        // run too; what is checked is that every kept one ran, and none twice.
        #expect(kept.isSubset(of: Set(ran.keys)))
        #expect(ran.values.allSatisfy { $0 == 1 })
        #expect(wheel.pending == 0 && !wheel.isTicking)
    }
}
