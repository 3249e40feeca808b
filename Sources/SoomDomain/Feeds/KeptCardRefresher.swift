import Foundation
import Synchronization

/// Reads again, in the background, the kept cards `FeedPageCache.cards(_:at:)` found due for a
/// read ahead of their expiry and claimed for a reader — many readers' due cards in one read.
/// While a read is on its way, the cards falling due queue up and go together in the next one (at
/// most `batchSize` a read; a queue longer than that gets another read at once, up to
/// `maximumReads` at a time, so that a reader waiting for a queued card — dropped by a like while
/// it waited — waits for one read at most, not for the queue). So details and pages of many cards, opened by many readers, cost
/// PostgreSQL a statement per batch rather than one per card: without it, a thousand cards in
/// use meant two thousand single-card reads a second at a page lifetime of half a second.
///
/// A read's ticket is taken when it begins, so a change made since the cards fell due is never
/// put back. A card the read does not find (no longer live) is dropped, with the pages showing
/// it. A failed read only releases the claims: the kept cards serve until they expire, and the
/// reader who then finds one gone reads it in the foreground and meets the error, if any.
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
        var queued: [UUID] = []
        /// Tasks draining the queue.
        var draining = 0
    }

    public init(cards: any CardRepository, cache: FeedPageCache, now: @escaping @Sendable () -> Date) {
        self.cards = cards
        self.cache = cache
        self.now = now
    }

    /// Queues `ids`, claimed for a read ahead (each must be landed: this does it), and starts a
    /// draining task unless one is running (or, for a queue of more than a batch, `maximumReads`).
    public func refresh(_ ids: [UUID]) {
        guard !ids.isEmpty else { return }
        let start = self.state.withLock { state in
            state.queued += ids
            guard state.draining == 0 || (state.queued.count >= Self.batchSize && state.draining < Self.maximumReads) else { return false }
            state.draining += 1
            return true
        }
        if start { Task { await self.drain() } }
    }

    /// Reads `ids`, claimed by the caller, in one statement; keeps the cards found and lands every
    /// claim, whatever happens (a waiting reader gets a card only if it was kept). With
    /// `droppingGone`, a card not found (no longer live: deleted, hidden, expired through another
    /// instance) is dropped first, with whatever page shows it. The cards found, as kept, or
    /// unkept as read from the ticket's time.
    func readClaimed(_ ids: [UUID], ticket: FeedPageCache.Ticket, droppingGone: Bool = false) async throws -> [UUID: KeptCard] {
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
            if droppingGone { self.cache.invalidate(card: id) }
            self.cache.land(card: id, with: nil)
        }
        return found
    }

    private func drain() async {
        while let ids = self.next() {
            // A failed read only released the claims (see the type's description).
            _ = try? await self.readClaimed(ids, ticket: self.cache.ticket(at: self.now()), droppingGone: true)
        }
    }

    /// The next batch, or nil (and the drain ends) when nothing is queued.
    private func next() -> [UUID]? {
        self.state.withLock { state in
            guard !state.queued.isEmpty else {
                state.draining -= 1
                return nil
            }
            let batch = Array(state.queued.prefix(Self.batchSize))
            state.queued.removeFirst(batch.count)
            return batch
        }
    }
}
