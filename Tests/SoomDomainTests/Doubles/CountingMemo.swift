import SoomDomain
import Synchronization

/// A `SharedMemo` for tests: each one made has its own number, so a test can tell memos apart.
final class CountingMemo: SharedMemo {
    private static let made = Atomic<Int>(0)
    let number: Int

    init() {
        self.number = Self.made.add(1, ordering: .relaxed).newValue
    }

    /// Memos for every kept card and chunk entry, as SoomHTTP's are.
    static let maker = SharedMemoMaker(card: { CountingMemo() })
}
