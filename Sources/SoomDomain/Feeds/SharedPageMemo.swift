import Synchronization

/// Work an outer layer derives from one kept shared page or nearby chunk entry (its encoded form,
/// say), kept with it in `FeedPageCache` so that it is done once rather than once per reader.
/// What is kept must depend only on the shared part, never on one reader's flags: a reader whose
/// own marks changed it (a like, with its newer count) only `peek`s.
public final class SharedPageMemo: Sendable, Equatable {
    private let stored = Mutex<(any Sendable)?>(nil)

    public init() {}

    /// The kept value of type `T`, made by `make` the first time. Readers arriving together may
    /// each make it; they make the same value, and one of them is kept.
    public func value<T: Sendable>(_ make: () -> T) -> T {
        if let kept = self.stored.withLock({ $0 as? T }) { return kept }
        let made = make()
        self.stored.withLock { $0 = made }
        return made
    }

    /// The kept value of type `T`, if one was made.
    public func peek<T: Sendable>(_ type: T.Type = T.self) -> T? {
        self.stored.withLock { $0 as? T }
    }

    /// The same memo: the same kept page.
    public static func == (lhs: SharedPageMemo, rhs: SharedPageMemo) -> Bool { lhs === rhs }
}
