import Foundation

/// Recently checked sessions, so that a signed-in request does not spend a database round trip
/// on its token before its real work.
///
/// The contract: a token that stops working (sign-out, withdrawal, a device transfer, expiry)
/// is refused at once by the instance that ended it and within a notification's delay (milliseconds)
/// by every other instance; an account's name, picture, bio or restriction is never served older
/// than that either. If an instance's listening connection dies silently, its cache goes off
/// within the listener's heartbeat and timeout (about 8 s), and `lifetime` bounds even that. How:
/// - Every such change in the database notifies `SessionCache.channel` with the account's id
///   (triggers of migration 0009, so no write path can forget), and a listener per instance
///   calls `invalidate(account:)`. The instance that made the change also calls it itself before
///   answering, so its own next request cannot race the notification.
/// - The cache works only while that listener is connected (`resume()`); when the connection
///   drops, notifications may be missed, so `suspend()` empties it and stops storing until the
///   listener is back.
/// - A read that started before an invalidation of its account is not stored: `ticket()` is taken
///   before the database read and `store` refuses it if the account was invalidated in between
///   (otherwise the read could put back what the invalidation just removed).
/// - Entries live at most `lifetime` (a bound even if a notification were lost) and never past
///   the session's own expiry. At most `capacity` entries are kept; beyond it an arbitrary
///   one makes room.
///
/// The mechanism is `InvalidatedCache`'s: sessions by token hash, tagged with their account.
///
/// Counters (`cardCount`, `followerCount`, `followingCount`) of a cached account may be older:
/// whoever shows them reads the account afresh (see `Authenticate.Caller.isFresh`).
public final class SessionCache: Sendable {
    /// The PostgreSQL notification channel the triggers of migration 0009 notify.
    public static let channel = "soom_account_changed"

    /// Proof of what had been invalidated when a read began; see `store`.
    public typealias Ticket = InvalidatedCache<[UInt8], LiveSession, UUID>.Ticket

    private let sessions: InvalidatedCache<[UInt8], LiveSession, UUID>

    /// - Parameters:
    ///   - lifetime: the longest an entry is used, in seconds; 0 disables the cache.
    ///   - capacity: the most entries kept (about 300 bytes each).
    public init(lifetime: TimeInterval, capacity: Int = 100_000) {
        self.sessions = InvalidatedCache(
            lifetime: lifetime, capacity: capacity, listening: false, tags: { [$0.account.id] }, isServable: { $0.expiresAt > $1 })
    }

    public var lifetime: TimeInterval { self.sessions.lifetime }
    public var capacity: Int { self.sessions.capacity }

    /// Whether entries are used: a positive lifetime and a connected listener.
    public var isActive: Bool { self.sessions.isActive }

    /// The number of entries kept (for tests and metrics).
    public var count: Int { self.sessions.count }

    /// The live session behind `tokenHash`, if it was stored less than `lifetime` ago and has not
    /// expired at `now`.
    public func session(tokenHash: [UInt8], now: Date) -> LiveSession? {
        self.sessions.value(tokenHash, at: now)
    }

    /// Taken before reading a session from the database, for `store`.
    public func ticket() -> Ticket { self.sessions.ticket() }

    /// Keeps `session`, whose read began at `now`, unless its account was invalidated since
    /// `ticket` was taken or the listener is not connected.
    public func store(_ session: LiveSession, tokenHash: [UInt8], ticket: Ticket, now: Date) {
        self.sessions.store(session, for: tokenHash, readAt: now, ticket: ticket)
    }

    /// Forgets every session of `accountID`: its sessions or its account changed.
    public func invalidate(account accountID: UUID) {
        self.sessions.invalidate(.tag(accountID))
    }

    /// Forgets the session behind `tokenHash`: it ended.
    public func invalidate(tokenHash: [UInt8]) {
        self.sessions.invalidate(.keys { $0 == tokenHash })
    }

    /// Forgets every entry but keeps working: something changed that no account id names (a
    /// `TRUNCATE`).
    public func invalidateAll() { self.sessions.invalidateAll() }

    /// The listener is connected (again): from now on every change is heard, so entries may be kept.
    public func resume() { self.sessions.resume() }

    /// The listener lost its connection: changes may go unheard, so forget everything and keep
    /// nothing until `resume()`.
    public func suspend() { self.sessions.suspend() }
}
