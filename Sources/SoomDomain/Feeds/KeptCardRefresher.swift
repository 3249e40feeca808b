import Foundation
import Synchronization

/// Reads again, in the background, the kept cards `FeedPageCache.cards(_:at:)` found due for a
/// read ahead of their expiry and claimed for a reader — many readers' due cards in one read; and
/// reads, the same way, the cards readers found not kept at all and wait for (`read(_:)`).
/// While a read is on its way, the cards falling due queue up and go together in the next one (at
/// most `batchSize` a read; a queue longer than that gets another read at once, up to
/// `maximumReads` at a time, so that a reader waiting for a queued card — dropped by a like while
/// it waited — waits for one read at most, not for the queue). So details and pages of many cards, opened by many readers, cost
/// PostgreSQL a statement per batch rather than one per card.
///
/// A read's ticket is taken when it begins, so a change made since the cards fell due is never
/// put back. A card the read does not find (no longer live) is dropped, with the pages showing
/// it. A failed read only releases the claims: the kept cards serve until they expire, and the
/// reader who then finds one gone reads it in the foreground and meets the error, if any.
///
/// Cards not kept at all are queued too, rather than read by each reader on its own: many cards in
/// use by few hits each mostly expire before anyone opens them in their last quarter.
public final class KeptCardRefresher: Sendable {
    /// Cards read at most in one statement.
    public static let batchSize = 256
    /// Reads on their way at most.
    public static let maximumReads = 4

    private let cards: any CardRepository
    private let cache: FeedPageCache
    private let now: @Sendable () -> Date
    private let state = Mutex(State())

    private struct State {
        /// What to read, in order.
        var queued: [Request] = []
        /// The cards in `queued`.
        var queuedCards = 0
        /// Tasks draining the queue.
        var draining = 0
    }

    /// Cards queued together: a read ahead's (a card then not found is dropped), or a reader's,
    /// who waits for what the read finds.
    private struct Request {
        let ids: [UUID]
        let ahead: Bool
        let reader: CheckedContinuation<[UUID: KeptCard], any Error>?
    }

    /// The cards queued for a read not yet begun (for tests).
    public var queuedCards: Int { self.state.withLock { $0.queuedCards } }

    public init(cards: any CardRepository, cache: FeedPageCache, now: @escaping @Sendable () -> Date) {
        self.cards = cards
        self.cache = cache
        self.now = now
    }

    /// Queues `ids`, claimed for a read ahead (each must be landed: this does it), and starts a
    /// draining task unless one is running (or, for a queue of more than a batch, `maximumReads`).
    public func refresh(_ ids: [UUID]) {
        guard !ids.isEmpty else { return }
        self.enqueue(Request(ids: ids, ahead: true, reader: nil))
    }

    /// Reads `ids`, not kept and claimed by the caller (`FeedPageCache.claimCards`), in the next
    /// read with other readers' cards, which keeps them and lands each claim; the cards found, as
    /// kept (or unkept as read, when not kept). A card not found is not dropped from anything: it
    /// may never have existed, and a stream of unknown IDs must not churn the cache's change log.
    /// - Throws: the read's error.
    func read(_ ids: [UUID]) async throws -> [UUID: KeptCard] {
        guard !ids.isEmpty else { return [:] }
        return try await withCheckedThrowingContinuation { reader in
            self.enqueue(Request(ids: ids, ahead: false, reader: reader))
        }
    }

    /// Queues `request` and starts a draining task unless one is running (or, for a queue of more
    /// than a batch, `maximumReads`).
    private func enqueue(_ request: Request) {
        let start = self.state.withLock { state in
            state.queued.append(request)
            state.queuedCards += request.ids.count
            guard state.draining == 0 || (state.queuedCards >= Self.batchSize && state.draining < Self.maximumReads) else { return false }
            state.draining += 1
            return true
        }
        if start { Task { await self.drain() } }
    }

    /// Reads `ids`, claimed by the caller, in one statement; keeps the cards found and lands every
    /// claim, whatever happens (a waiting reader gets a card only if it was kept). A card of
    /// `droppingGone` not found (no longer live: deleted, hidden, expired through another
    /// instance) is dropped first, with whatever page shows it. The cards found, as kept, or
    /// unkept as read from the ticket's time.
    private func readClaimed(_ ids: [UUID], ticket: FeedPageCache.Ticket, droppingGone: Set<UUID>) async throws -> [UUID: KeptCard] {
        let read: [Card]
        do {
            read = try await self.cards.sharedCards(ids)
        } catch {
            for id in ids { self.cache.land(card: id, with: nil) }
            throw error
        }
        var found: [UUID: KeptCard] = [:]
        for card in read where found[card.id] == nil {
            let kept = self.cache.store(card, ticket: ticket)
            found[card.id] = kept ?? KeptCard(card: card, memo: nil, readAt: ticket.readAt)
            self.cache.land(card: card.id, with: kept)
        }
        for id in ids where found[id] == nil {
            if droppingGone.contains(id) { self.cache.invalidate(card: id) }
            self.cache.land(card: id, with: nil)
        }
        return found
    }

    private func drain() async {
        while let batch = self.next() {
            let ids = batch.flatMap(\.ids)
            let ahead = Set(batch.filter(\.ahead).flatMap(\.ids))
            do {
                let found = try await self.readClaimed(ids, ticket: self.cache.ticket(at: self.now()), droppingGone: ahead)
                for request in batch {
                    request.reader?.resume(returning: Dictionary(request.ids.compactMap { id in found[id].map { (id, $0) } }) { first, _ in first })
                }
            } catch {
                // A read ahead's failure only released the claims (see the type's description).
                for request in batch { request.reader?.resume(throwing: error) }
            }
        }
    }

    /// The next batch: queued requests up to `batchSize` cards (at least one request); or nil
    /// (and the drain ends) when nothing is queued.
    private func next() -> [Request]? {
        self.state.withLock { state in
            guard let first = state.queued.first else {
                state.draining -= 1
                return nil
            }
            var batch = [first]
            var cards = first.ids.count
            for request in state.queued.dropFirst() {
                guard cards + request.ids.count <= Self.batchSize else { break }
                batch.append(request)
                cards += request.ids.count
            }
            state.queued.removeFirst(batch.count)
            state.queuedCards -= cards
            return batch
        }
    }
}
