import Foundation
import Synchronization

/// Fixed-window request counters, in memory, for one server instance.
///
/// A caller's window opens with its first request and lasts the rule's length; within it at
/// most `count` requests pass. Keys are a caller's account, or a client address reduced to a
/// hash (IPv6 addresses by their /64, which one subscriber usually holds whole): no address is
/// kept, even in memory, beyond the hash. Sixteen shards keep the lock uncontended; windows that
/// have ended are swept out as new keys arrive, so memory follows the number of recent callers.
///
/// Memory is bounded, also under a flood of distinct addresses: a shard holds at most
/// `capacity / 16` windows. A shard that is full of live windows keeps its busiest half and
/// forgets the rest — callers with few requests, who lose little by starting a new window —
/// so that a flood cannot push out the counts of the callers who are actually near their limit.
final class RateLimiter: Sendable {
    /// About 100 bytes a window: 262,144 windows are some 26 MB at most.
    static let defaultCapacity = 262_144

    /// Who is counted.
    enum Caller: Hashable, Sendable {
        case account(UUID)
        case address(Int)
    }

    struct Decision: Sendable, Equatable {
        let allowed: Bool
        let limit: Int
        let remaining: Int
        /// Seconds until the window ends (at least 1).
        let reset: Int
    }

    private struct Key: Hashable {
        let kind: RateLimits.Kind
        let caller: Caller
    }

    private struct Window {
        var end: ContinuousClock.Instant
        var count: Int
    }

    private struct Counts {
        var windows: [Key: Window] = [:]
        var sweepAt = 1024
    }

    /// A `Mutex` is not copyable, so each shard's lives in a class of its own.
    private final class Shard: Sendable {
        let counts = Mutex(Counts())
    }

    let limits: RateLimits
    private let shards: [Shard]
    /// Most windows one shard holds.
    private let shardCapacity: Int
    /// The time windows are measured by: the continuous clock, or one a test moves.
    private let now: @Sendable () -> ContinuousClock.Instant

    init(limits: RateLimits, capacity: Int = RateLimiter.defaultCapacity, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.limits = limits
        self.shards = (0..<16).map { _ in Shard() }
        self.shardCapacity = max(2, capacity / 16)
        self.now = now
    }

    /// How many windows are held now (for tests of the memory bound).
    var windowCount: Int { self.shards.reduce(0) { $0 + $1.counts.withLock { $0.windows.count } } }

    /// Counts one request of `caller` against `kind`'s limit. With `counting: false` only says
    /// how it stands (whether one more request would pass), counting nothing.
    func check(_ kind: RateLimits.Kind, caller: Caller, counting: Bool = true) -> Decision {
        let rule = self.limits.rule(kind)
        let key = Key(kind: kind, caller: caller)
        let now = self.now()
        let shard = self.shards[Int(UInt(bitPattern: key.hashValue) % UInt(self.shards.count))]
        return shard.counts.withLock { shard in
            var window = shard.windows[key] ?? Window(end: now + .seconds(rule.window), count: 0)
            if window.end <= now {
                window = Window(end: now + .seconds(rule.window), count: 0)
            }
            let allowed = window.count < rule.count
            if allowed && counting {
                window.count += 1
                shard.windows[key] = window
                if shard.windows.count >= min(shard.sweepAt, self.shardCapacity) {
                    self.makeRoom(in: &shard, now: now)
                }
            }
            // Whole seconds until the window ends, rounded up.
            let left = now.duration(to: window.end).components
            let reset = Int(left.seconds) + (left.attoseconds > 0 ? 1 : 0)
            return Decision(allowed: allowed, limit: rule.count, remaining: rule.count - window.count, reset: max(1, reset))
        }
    }

    /// Drops ended windows; when live ones still fill the shard, keeps its busiest half. Runs at
    /// most once per `sweepAt / 2` new keys, so its cost per request stays constant.
    private func makeRoom(in shard: inout Counts, now: ContinuousClock.Instant) {
        shard.windows = shard.windows.filter { $0.value.end > now }
        if shard.windows.count >= self.shardCapacity {
            let keep = self.shardCapacity / 2
            let busiest = shard.windows.sorted { $0.value.count > $1.value.count }.prefix(keep)
            shard.windows = Dictionary(uniqueKeysWithValues: busiest.map { ($0.key, $0.value) })
        }
        shard.sweepAt = max(1024, shard.windows.count * 2)
    }

    /// The counting key of a client address: a hash (with the process's random seed) of the
    /// IPv4 address — also when it comes as an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`, what a
    /// dual-stack socket reports for IPv4 clients), so that it is not counted together with every
    /// other IPv4 client in the one /64 that `::ffff:0:0/96` falls in — or of the first 64 bits of
    /// an IPv6 address.
    static func addressKey(_ address: String) -> Int {
        var hasher = Hasher()
        switch ClientAddress(address) {
        case .v4(let bytes):
            hasher.combine(4)
            hasher.combine(bytes)
        case .v6(let prefix):
            hasher.combine(6)
            hasher.combine(prefix)
        case .unknown(let text):
            hasher.combine(0)
            hasher.combine(text)
        }
        return hasher.finalize()
    }
}
