import Foundation

/// The last top-ten read, kept for at most `lifetime` (never more than one second).
///
/// The age of a ranking is measured from the moment its read *started*, so a slow read cannot
/// make a cached ranking older than `lifetime` when served. A lifetime of zero disables it.
/// Concurrent misses may each read once; the newest read wins. Nothing invalidates it: the
/// contract allows the ranking to be a second old. The mechanism is `InvalidatedCache`'s, with
/// one key.
public final class TagRankingCache: Sendable {
    /// The contract's bound: a ranking served from the cache is never older than this.
    public static let maximumLifetime: TimeInterval = 1

    private enum TopTen: Hashable, Sendable { case ranking }

    private let kept: InvalidatedCache<TopTen, [TagUsage], Never>

    /// - Parameter lifetime: clamped to 0…1 second.
    public init(lifetime: TimeInterval) {
        self.kept = InvalidatedCache(lifetime: min(max(lifetime, 0), Self.maximumLifetime), capacity: 1, tags: { _ in [] })
    }

    public var lifetime: TimeInterval { self.kept.lifetime }

    /// The cached ranking if it is younger than `lifetime` at `now`.
    public func ranking(at now: Date) -> [TagUsage]? {
        self.kept.value(.ranking, at: now)
    }

    /// Keeps `ranking`, read starting at `readAt`, unless a newer read is already kept.
    public func store(_ ranking: [TagUsage], readAt: Date) {
        // Nothing is ever invalidated, so any ticket is current.
        self.kept.store(ranking, for: .ranking, readAt: readAt, ticket: self.kept.ticket())
    }
}
