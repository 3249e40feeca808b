import SoomDomain
import Synchronization

/// The encoded JSON of one kept card or nearby chunk entry, kept with it in `FeedPageCache` (a
/// `SharedMemo`): written by its first reader, copied by the others.
final class JSONMemo<Encoded: Sendable>: SharedMemo {
    private let stored = Mutex<Encoded?>(nil)

    init() {}

    /// The kept value, made by `make` the first time. Readers arriving together may each make it;
    /// they make the same value, and one of them is kept.
    func value(_ make: () -> Encoded) -> Encoded {
        if let kept = self.stored.withLock({ $0 }) { return kept }
        let made = make()
        self.stored.withLock { $0 = made }
        return made
    }

    /// The kept value, if one was made: for a reader whose own marks (a like, with its newer
    /// count) make their copy differ, who may use the memo but not fill it.
    func peek() -> Encoded? {
        self.stored.withLock { $0 }
    }
}

extension SharedMemoMaker {
    /// The memos `CardListBody` uses: a kept card's or nearby entry's shared members
    /// (`SharedCardJSON`), encoded once for all their readers.
    public static let encodedCards = SharedMemoMaker(card: { JSONMemo<SharedCardJSON>() })
}
