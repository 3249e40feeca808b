import Foundation
import SoomDomain
import Testing

@Suite("Session cache")
struct SessionCacheTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func session(_ accountID: UUID = UUID(), expiresIn: TimeInterval = 3600) -> LiveSession {
        LiveSession(
            account: Account(id: accountID, nickname: "n", profileImage: nil, bio: "", createdAt: start),
            expiresAt: start.addingTimeInterval(expiresIn))
    }

    static func listening(lifetime: TimeInterval = 10, capacity: Int = 100) -> SessionCache {
        let cache = SessionCache(lifetime: lifetime, capacity: capacity)
        cache.resume()
        return cache
    }

    @Test("an entry is served for its lifetime, never past the session's expiry, and only while listening")
    func lifetimeAndExpiry() {
        let cache = Self.listening()
        let session = Self.session(expiresIn: 15)
        cache.store(session, tokenHash: [1], ticket: cache.ticket(), now: Self.start)
        #expect(cache.session(tokenHash: [1], now: Self.start.addingTimeInterval(9.9)) == session)
        #expect(cache.session(tokenHash: [1], now: Self.start.addingTimeInterval(10)) == nil)
        #expect(cache.count == 0)

        cache.store(session, tokenHash: [1], ticket: cache.ticket(), now: Self.start.addingTimeInterval(12))
        #expect(cache.session(tokenHash: [1], now: Self.start.addingTimeInterval(14.9)) == session)
        #expect(cache.session(tokenHash: [1], now: Self.start.addingTimeInterval(15)) == nil)
        // A clock that went back does not make an entry young again.
        cache.store(session, tokenHash: [2], ticket: cache.ticket(), now: Self.start)
        #expect(cache.session(tokenHash: [2], now: Self.start.addingTimeInterval(-1)) == nil)

        let notListening = SessionCache(lifetime: 10)
        notListening.store(session, tokenHash: [1], ticket: notListening.ticket(), now: Self.start)
        #expect(notListening.count == 0)
        #expect(!notListening.isActive)
        let off = SessionCache(lifetime: 0)
        off.resume()
        off.store(session, tokenHash: [1], ticket: off.ticket(), now: Self.start)
        #expect(off.session(tokenHash: [1], now: Self.start) == nil)
        #expect(!off.isActive)
    }

    @Test("invalidating an account drops all its sessions and no one else's")
    func invalidateAccount() {
        let cache = Self.listening()
        let mine = UUID()
        cache.store(Self.session(mine), tokenHash: [1], ticket: cache.ticket(), now: Self.start)
        cache.store(Self.session(mine), tokenHash: [2], ticket: cache.ticket(), now: Self.start)
        let other = Self.session()
        cache.store(other, tokenHash: [3], ticket: cache.ticket(), now: Self.start)
        cache.invalidate(account: mine)
        #expect(cache.session(tokenHash: [1], now: Self.start) == nil)
        #expect(cache.session(tokenHash: [2], now: Self.start) == nil)
        #expect(cache.session(tokenHash: [3], now: Self.start) == other)
        #expect(cache.count == 1)
    }

    @Test("a read that started before an invalidation of its account or a reconnect is not kept")
    func staleReads() {
        let cache = Self.listening()
        let session = Self.session()
        let ticket = cache.ticket()
        cache.invalidate(account: session.account.id)
        cache.store(session, tokenHash: [1], ticket: ticket, now: Self.start)
        #expect(cache.count == 0)

        // Another account's change does not concern this read.
        let unrelated = cache.ticket()
        cache.invalidate(account: UUID())
        cache.store(session, tokenHash: [1], ticket: unrelated, now: Self.start)
        #expect(cache.count == 1)
        cache.invalidate(account: session.account.id)

        let beforeLoss = cache.ticket()
        cache.suspend()
        cache.resume()
        cache.store(Self.session(), tokenHash: [1], ticket: beforeLoss, now: Self.start)
        #expect(cache.count == 0)
        cache.store(Self.session(), tokenHash: [1], ticket: cache.ticket(), now: Self.start)
        #expect(cache.count == 1)
    }

    @Test("invalidating everything empties the cache, refuses older reads, and keeps it on")
    func invalidateAll() {
        let cache = Self.listening()
        cache.store(Self.session(), tokenHash: [1], ticket: cache.ticket(), now: Self.start)
        let ticket = cache.ticket()
        cache.invalidateAll()
        #expect(cache.count == 0)
        #expect(cache.isActive)
        cache.store(Self.session(), tokenHash: [2], ticket: ticket, now: Self.start)
        #expect(cache.count == 0)
        cache.store(Self.session(), tokenHash: [2], ticket: cache.ticket(), now: Self.start)
        #expect(cache.count == 1)
    }

    @Test("losing the listener empties the cache and stops it until it is back")
    func suspend() {
        let cache = Self.listening()
        let session = Self.session()
        cache.store(session, tokenHash: [1], ticket: cache.ticket(), now: Self.start)
        cache.suspend()
        #expect(!cache.isActive)
        #expect(cache.session(tokenHash: [1], now: Self.start) == nil)
        cache.store(session, tokenHash: [1], ticket: cache.ticket(), now: Self.start)
        #expect(cache.count == 0)
        cache.resume()
        #expect(cache.isActive)
        #expect(cache.session(tokenHash: [1], now: Self.start) == nil)
    }

    @Test("at most capacity entries are kept")
    func capacity() {
        let cache = Self.listening(capacity: 3)
        let sessions = (0..<5).map { _ in Self.session() }
        for (index, session) in sessions.enumerated() {
            cache.store(session, tokenHash: [UInt8(index)], ticket: cache.ticket(), now: Self.start)
        }
        #expect(cache.count == 3)
        // The newest is always kept; storing a kept token again does not evict another.
        #expect(cache.session(tokenHash: [4], now: Self.start) == sessions[4])
        cache.store(sessions[4], tokenHash: [4], ticket: cache.ticket(), now: Self.start)
        #expect(cache.count == 3)
    }

    @Test("Authenticate answers from the cache; sign-out, withdrawal and a profile change are seen at once")
    func authenticateUsesCache() async throws {
        let world = World(sessions: Self.listening())
        let signedIn = try await world.register("phone", nickname: "Moon")
        let first = try await world.caller(signedIn)
        #expect(first.isFresh)
        // Deleting the stored session behind the cache's back shows the next check is served from memory.
        world.repository.storage.withLock { $0.sessions = [:] }
        let cached = try await world.caller(signedIn)
        #expect(!cached.isFresh)
        #expect(cached.account == first.account)

        // Counters of a cached account may be old: showing the account reads it afresh.
        world.repository.storage.withLock { $0.accounts[signedIn.account.id]?.account.followerCount = 7 }
        #expect(try await ShowAccount(world.environment)(cached).followerCount == 7)
        #expect(try await ShowAccount(world.environment)(first).followerCount == 0)

        // A profile change invalidates the cache at once: the next check goes to storage (where
        // the session is gone, so it is refused).
        let renamed = try await UpdateProfile(world.environment)(cached, .init(nickname: "Sun"))
        #expect(renamed.nickname == "Sun")
        await #expect(throws: SoomError.unauthorized) { try await world.caller(signedIn) }

        // Sign-out and withdrawal also drop the entry here and now (without that, the cached
        // entry would still answer: it is well within its lifetime).
        let session = try await SignIn(world.environment)(try await world.proof("phone", .login))
        _ = try await world.caller(session)
        let signingOut = try await world.caller(session)
        #expect(!signingOut.isFresh)
        try await SignOut(world.environment)(signingOut)
        await #expect(throws: SoomError.unauthorized) { try await world.caller(session) }

        let last = try await SignIn(world.environment)(try await world.proof("phone", .login))
        _ = try await world.caller(last)
        let leaving = try await world.caller(last)
        #expect(!leaving.isFresh)
        try await Withdraw(world.environment)(leaving, reason: "", proof: try await world.accountProof("phone", .withdraw))
        await #expect(throws: SoomError.unauthorized) { try await world.caller(last) }
    }
}
