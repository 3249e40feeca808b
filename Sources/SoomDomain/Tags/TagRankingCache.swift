import Foundation
import Synchronization

/// The last top-ten read, kept for at most `lifetime` (never more than one second).
///
/// The age of a ranking is measured from the moment its read *started*, so a slow read cannot
/// make a cached ranking older than `lifetime` when served. A lifetime of zero disables it.
/// Concurrent misses may each read once; the newest read wins.
public final class TagRankingCache: Sendable {
    /// The contract's bound: a ranking served from the cache is never older than this.
    public static let maximumLifetime: TimeInterval = 1

    public let lifetime: TimeInterval
    private let entry = Mutex<Entry?>(nil)

    private struct Entry {
        let ranking: [TagUsage]
        let readAt: Date
    }

    /// - Parameter lifetime: clamped to 0…1 second.
    public init(lifetime: TimeInterval) {
        self.lifetime = min(max(lifetime, 0), Self.maximumLifetime)
    }

    /// The cached ranking if it is younger than `lifetime` at `now`.
    public func ranking(at now: Date) -> [TagUsage]? {
        guard self.lifetime > 0 else { return nil }
        return self.entry.withLock { entry in
            guard let entry, now.timeIntervalSince(entry.readAt) < self.lifetime, now >= entry.readAt else { return nil }
            return entry.ranking
        }
    }

    /// Keeps `ranking`, read starting at `readAt`, unless a newer read is already kept.
    public func store(_ ranking: [TagUsage], readAt: Date) {
        guard self.lifetime > 0 else { return }
        self.entry.withLock { entry in
            if let current = entry, current.readAt > readAt { return }
            entry = Entry(ranking: ranking, readAt: readAt)
        }
    }
}
