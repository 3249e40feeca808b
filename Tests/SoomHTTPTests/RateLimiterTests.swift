import Foundation
import HTTPTypes
import Synchronization
import Testing

@testable import SoomHTTP

/// The rate limiter: its rules, its windows (on a clock
/// the test moves, no sleeping) and the keys of client addresses.
@Suite("Rate limiter")
struct RateLimiterTests {
    /// A clock that stands still until the test moves it.
    final class TestClock: Sendable {
        private let start = ContinuousClock.now
        private let offset = Mutex(Duration.zero)

        var now: ContinuousClock.Instant { self.start + self.offset.withLock { $0 } }

        func advance(by duration: Duration) {
            self.offset.withLock { $0 += duration }
        }
    }

    static func limiter(posting: RateLimits.Rule, clock: TestClock, capacity: Int = RateLimiter.defaultCapacity) -> RateLimiter {
        var limits = RateLimits()
        limits.posting = posting
        return RateLimiter(limits: limits, capacity: capacity, now: { clock.now })
    }

    @Test("rules parse as count/seconds and refuse anything else")
    func rules() {
        #expect(RateLimits.Rule(parsing: "30/60") == RateLimits.Rule(count: 30, window: 60))
        for bad in ["", "30", "30/", "/60", "0/60", "30/0", "-1/60", "30/86401", "a/b", "30/60/1"] {
            #expect(RateLimits.Rule(parsing: bad) == nil, "\(bad)")
        }
        let defaults = RateLimits()
        #expect(
            [defaults.challenges, defaults.accountCreation, defaults.posting, defaults.general].map(\.description)
                == ["30/60", "5/3600", "30/600", "600/300"])
    }

    @Test("addresses are counted by a hash: IPv4 whole, IPv6 by its /64; the proxy's last X-Forwarded-For entry")
    func addresses() {
        #expect(RateLimiter.addressKey("10.0.0.1") == RateLimiter.addressKey("10.0.0.1"))
        #expect(RateLimiter.addressKey("10.0.0.1") != RateLimiter.addressKey("10.0.0.2"))
        #expect(RateLimiter.addressKey("2001:db8:1:2::1") == RateLimiter.addressKey("2001:db8:1:2:ffff::9"))
        #expect(RateLimiter.addressKey("2001:db8:1:2::1") != RateLimiter.addressKey("2001:db8:1:3::1"))
        // IPv4-mapped IPv6 addresses count as their IPv4 address, not as one /64 for all of IPv4.
        #expect(RateLimiter.addressKey("::ffff:10.0.0.1") == RateLimiter.addressKey("10.0.0.1"))
        #expect(RateLimiter.addressKey("::ffff:10.0.0.1") != RateLimiter.addressKey("::ffff:10.0.0.2"))
        #expect(RateLimiter.addressKey("::FFFF:0a00:0001") == RateLimiter.addressKey("10.0.0.1"))
        #expect(RateLimiter.addressKey("::ffff:10.0.0.1") != RateLimiter.addressKey("::1"))
        var headers = HTTPFields()
        headers.append(HTTPField(name: .xForwardedFor, value: "6.6.6.6, 1.2.3.4"))
        #expect(RateLimitMiddleware<AppRequestContext>.lastForwardedFor(headers) == "1.2.3.4")
        #expect(RateLimitMiddleware<AppRequestContext>.lastForwardedFor(HTTPFields()) == nil)
    }

    @Test("a window lets count requests through per caller and limit, then refuses until it ends")
    func window() {
        let clock = TestClock()
        let limiter = Self.limiter(posting: RateLimits.Rule(count: 3, window: 10), clock: clock)
        let (a, b) = (RateLimiter.Caller.account(UUID()), RateLimiter.Caller.account(UUID()))
        let decisions = (0..<4).map { _ in limiter.check(.posting, caller: a) }
        #expect(decisions.map(\.allowed) == [true, true, true, false])
        #expect(decisions.map(\.remaining) == [2, 1, 0, 0])
        #expect(decisions.allSatisfy { $0.limit == 3 && $0.reset == 10 })
        #expect(limiter.check(.posting, caller: b).allowed)
        #expect(limiter.check(.general, caller: a).allowed)
        clock.advance(by: .milliseconds(9_500))
        #expect(!limiter.check(.posting, caller: a).allowed)
        #expect(limiter.check(.posting, caller: a).reset == 1)
        clock.advance(by: .milliseconds(500))
        #expect(limiter.check(.posting, caller: a).remaining == 2)
    }

    @Test("checking without counting says how it stands and counts nothing")
    func peek() {
        let clock = TestClock()
        let limiter = Self.limiter(posting: RateLimits.Rule(count: 1, window: 60), clock: clock)
        let caller = RateLimiter.Caller.address(42)
        #expect(limiter.check(.posting, caller: caller, counting: false).allowed)
        #expect(limiter.check(.posting, caller: caller).allowed)
        #expect(!limiter.check(.posting, caller: caller, counting: false).allowed)
        clock.advance(by: .seconds(60))
        #expect(limiter.check(.posting, caller: caller, counting: false).allowed)
    }

    @Test("ended windows are swept out as new callers arrive: memory follows recent callers")
    func sweep() {
        let clock = TestClock()
        let limiter = Self.limiter(posting: RateLimits.Rule(count: 5, window: 1), clock: clock, capacity: 1_600)
        for caller in 0..<1_000 { _ = limiter.check(.posting, caller: .address(caller)) }
        clock.advance(by: .seconds(2))
        for caller in 1_000..<3_000 { _ = limiter.check(.posting, caller: .address(caller)) }
        #expect(limiter.windowCount <= 1_600)
    }
}
