import Foundation
import Synchronization

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
/// - A read that started before an invalidation is not stored: `ticket()` is taken before the
///   database read and `store` refuses it if any invalidation came in between (otherwise the
///   read could put back what the invalidation just removed).
/// - Entries live at most `lifetime` (a bound even if a notification were lost) and never past
///   the session's own expiry. At most `capacity` entries are kept; beyond it an arbitrary
///   one makes room.
///
/// Counters (`cardCount`, `followerCount`, `followingCount`) of a cached account may be older:
/// whoever shows them reads the account afresh (see `Authenticate.Caller.isFresh`).
public final class SessionCache: Sendable {
    /// The PostgreSQL notification channel the triggers of migration 0009 notify.
    public static let channel = "soom_account_changed"

    public let lifetime: TimeInterval
    public let capacity: Int
    private let storage = Mutex(Storage())

    /// Proof that no invalidation happened since it was taken; see `store`.
    public struct Ticket: Sendable {
        fileprivate let generation: UInt64
    }

    private struct Entry {
        let session: LiveSession
        let storedAt: Date
    }

    private struct Storage {
        var entries: [[UInt8]: Entry] = [:]
        var tokensByAccount: [UUID: Set<[UInt8]>] = [:]
        /// Counts invalidations (and suspensions): a ticket from an older generation is stale.
        var generation: UInt64 = 0
        var listening = false

        mutating func remove(_ tokenHash: [UInt8]) {
            guard let entry = self.entries.removeValue(forKey: tokenHash) else { return }
            let accountID = entry.session.account.id
            self.tokensByAccount[accountID]?.remove(tokenHash)
            if self.tokensByAccount[accountID]?.isEmpty == true { self.tokensByAccount[accountID] = nil }
        }

        /// Forgets every entry; reads begun before are stale.
        mutating func removeAll() {
            self.generation &+= 1
            self.entries = [:]
            self.tokensByAccount = [:]
        }
    }

    /// - Parameters:
    ///   - lifetime: the longest an entry is used, in seconds; 0 disables the cache.
    ///   - capacity: the most entries kept (about 300 bytes each).
    public init(lifetime: TimeInterval, capacity: Int = 100_000) {
        self.lifetime = max(lifetime, 0)
        self.capacity = max(capacity, 1)
    }

    /// Whether entries are used: a positive lifetime and a connected listener.
    public var isActive: Bool {
        self.lifetime > 0 && self.storage.withLock { $0.listening }
    }

    /// The number of entries kept (for tests and metrics).
    public var count: Int {
        self.storage.withLock { $0.entries.count }
    }

    /// The live session behind `tokenHash`, if it was stored less than `lifetime` ago and has not
    /// expired at `now`.
    public func session(tokenHash: [UInt8], now: Date) -> LiveSession? {
        guard self.lifetime > 0 else { return nil }
        return self.storage.withLock { storage in
            guard storage.listening, let entry = storage.entries[tokenHash] else { return nil }
            let age = now.timeIntervalSince(entry.storedAt)
            guard age >= 0, age < self.lifetime, entry.session.expiresAt > now else {
                storage.remove(tokenHash)
                return nil
            }
            return entry.session
        }
    }

    /// Taken before reading a session from the database, for `store`.
    public func ticket() -> Ticket {
        Ticket(generation: self.storage.withLock { $0.generation })
    }

    /// Keeps `session`, read at `now`, unless an invalidation came in since `ticket` was taken
    /// or the listener is not connected.
    public func store(_ session: LiveSession, tokenHash: [UInt8], ticket: Ticket, now: Date) {
        guard self.lifetime > 0 else { return }
        self.storage.withLock { storage in
            guard storage.listening, storage.generation == ticket.generation else { return }
            if storage.entries[tokenHash] == nil, storage.entries.count >= self.capacity, let victim = storage.entries.keys.first {
                storage.remove(victim)
            }
            storage.remove(tokenHash)
            storage.entries[tokenHash] = Entry(session: session, storedAt: now)
            storage.tokensByAccount[session.account.id, default: []].insert(tokenHash)
        }
    }

    /// Forgets every session of `accountID`: its sessions or its account changed.
    public func invalidate(account accountID: UUID) {
        self.storage.withLock { storage in
            storage.generation &+= 1
            for tokenHash in storage.tokensByAccount.removeValue(forKey: accountID) ?? [] {
                storage.entries[tokenHash] = nil
            }
        }
    }

    /// Forgets every entry but keeps working: something changed that no account id names (a
    /// `TRUNCATE`).
    public func invalidateAll() {
        self.storage.withLock { $0.removeAll() }
    }

    /// The listener is connected (again): from now on every change is heard, so entries may be kept.
    public func resume() {
        self.storage.withLock { storage in
            storage.generation &+= 1
            storage.listening = true
        }
    }

    /// The listener lost its connection: changes may go unheard, so forget everything and keep
    /// nothing until `resume()`.
    public func suspend() {
        self.storage.withLock { storage in
            storage.listening = false
            storage.removeAll()
        }
    }
}
