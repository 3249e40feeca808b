/// Bounds how many test applications run at once.
///
/// Swift Testing starts every test of the run together. Each test app holds a database of its own
/// and a pool of up to six connections, so 190 apps at once could ask the throwaway
/// server for well over a thousand connections and the slowest starters would fail with
/// "too many clients". Apps beyond the limit wait for a slot instead; a test that starts an app
/// inside another (task-local `held`) reuses its slot, so nesting cannot deadlock.
actor TestAppSlots {
    static let shared = TestAppSlots(limit: 12)

    @TaskLocal static var held = false

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) {
        self.free = limit
    }

    /// Runs `body` holding a slot, waiting for one first if all are taken.
    static func withSlot<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        if Self.held { return try await body() }
        await Self.shared.acquire()
        do {
            let result = try await Self.$held.withValue(true) { try await body() }
            await Self.shared.release()
            return result
        } catch {
            await Self.shared.release()
            throw error
        }
    }

    private func acquire() async {
        if self.free > 0 {
            self.free -= 1
            return
        }
        await withCheckedContinuation { self.waiting.append($0) }
    }

    private func release() {
        if self.waiting.isEmpty {
            self.free += 1
        } else {
            self.waiting.removeFirst().resume()
        }
    }
}
