import Foundation
import Synchronization

/// Who opened which card (`GET /v1/cards/{id}`) or profile (`GET /v1/users/{id}`), noted in
/// memory on the request path (one set insertion) and handed to storage in batches by
/// `ViewFlushJob`, so that counting views never makes reading slower. Pairs are deduplicated
/// here and again in storage, which counts each reader once; the owner's own opens are not
/// noted. At most `capacity` pairs wait: beyond that, new ones are dropped (the counts then lag,
/// never overcount) and `dropped` says how many.
public final class ViewLog: Sendable {
    /// One reader opening one card or profile.
    public struct Pair: Sendable, Hashable {
        public let target: UUID
        public let reader: UUID

        public init(target: UUID, reader: UUID) {
            self.target = target
            self.reader = reader
        }
    }

    /// What is waiting to be written.
    public struct Batch: Sendable, Equatable {
        public var cardViews: Set<Pair> = []
        public var profileVisits: Set<Pair> = []

        public var isEmpty: Bool { self.cardViews.isEmpty && self.profileVisits.isEmpty }
        var count: Int { self.cardViews.count + self.profileVisits.count }
    }

    public let capacity: Int
    private let state = Mutex((batch: Batch(), dropped: 0))

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// Notes that `reader` opened the card `card` by `author` (nothing when it is their own).
    public func viewed(card: UUID, author: UUID, by reader: UUID) {
        guard author != reader else { return }
        self.note(Pair(target: card, reader: reader), \.cardViews)
    }

    /// Notes that `reader` opened the profile of `owner` (nothing when it is their own).
    public func visited(profile owner: UUID, by reader: UUID) {
        guard owner != reader else { return }
        self.note(Pair(target: owner, reader: reader), \.profileVisits)
    }

    private func note(_ pair: Pair, _ kind: WritableKeyPath<Batch, Set<Pair>>) {
        self.state.withLock { state in
            guard state.batch.count < self.capacity else {
                state.dropped += 1
                return
            }
            state.batch[keyPath: kind].insert(pair)
        }
    }

    /// Everything noted so far, leaving the log empty.
    public func take() -> Batch {
        self.state.withLock { state in
            defer { state.batch = Batch() }
            return state.batch
        }
    }

    /// A batch that could not be written, back in the log for the next round (within capacity).
    public func putBack(_ batch: Batch) {
        self.state.withLock { state in
            for pair in batch.cardViews where state.batch.count < self.capacity { state.batch.cardViews.insert(pair) }
            for pair in batch.profileVisits where state.batch.count < self.capacity { state.batch.profileVisits.insert(pair) }
        }
    }

    /// Pairs dropped because the log was full, since the start.
    public var dropped: Int { self.state.withLock { $0.dropped } }
}

/// Storage of views and visits: each pair counted once, exactly, whatever else runs.
public protocol ViewRepository: Sendable {
    /// Writes a batch: each new reader of a live card or existing profile is counted once (the
    /// owner never); pairs of accounts or cards gone meanwhile are skipped.
    func record(_ batch: ViewLog.Batch) async throws
}
