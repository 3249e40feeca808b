import Foundation
import Synchronization

/// Fixed-window request counters, in memory, for one server instance.
///
/// A caller's window opens with its first request and lasts the rule's length; within it at
/// most `count` requests pass. Keys are a caller's account, or a client address reduced to a
/// hash (IPv6 addresses by their /64, which one subscriber usually holds whole): no address is
/// kept, even in memory, beyond the hash. Sixteen shards keep the lock uncontended; windows that
/// have ended are swept out as new keys arrive, so memory follows the number of recent callers.
final class RateLimiter: Sendable {
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
    private let clock = ContinuousClock()

    init(limits: RateLimits) {
        self.limits = limits
        self.shards = (0..<16).map { _ in Shard() }
    }

    /// Counts one request of `caller` against `kind`'s limit.
    func check(_ kind: RateLimits.Kind, caller: Caller) -> Decision {
        let rule = self.limits.rule(kind)
        let key = Key(kind: kind, caller: caller)
        let now = self.clock.now
        let shard = self.shards[Int(UInt(bitPattern: key.hashValue) % UInt(self.shards.count))]
        return shard.counts.withLock { shard in
            var window = shard.windows[key] ?? Window(end: now + .seconds(rule.window), count: 0)
            if window.end <= now {
                window = Window(end: now + .seconds(rule.window), count: 0)
            }
            let allowed = window.count < rule.count
            if allowed { window.count += 1 }
            shard.windows[key] = window
            if shard.windows.count >= shard.sweepAt {
                shard.windows = shard.windows.filter { $0.value.end > now }
                shard.sweepAt = max(1024, shard.windows.count * 2)
            }
            // Whole seconds until the window ends, rounded up.
            let left = now.duration(to: window.end).components
            let reset = Int(left.seconds) + (left.attoseconds > 0 ? 1 : 0)
            return Decision(allowed: allowed, limit: rule.count, remaining: rule.count - window.count, reset: max(1, reset))
        }
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
