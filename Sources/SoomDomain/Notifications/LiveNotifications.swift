import Foundation
import Synchronization

/// A new notification as the live channel hands it on: its recipient's settings travel with it,
/// so that what is streamed (and pushed) follows them without another read.
public struct LiveNotification: Sendable, Equatable {
    public let recipient: UUID
    public let notification: AccountNotification
    public let settings: NotificationSettings

    public init(recipient: UUID, notification: AccountNotification, settings: NotificationSettings) {
        self.recipient = recipient
        self.notification = notification
        self.settings = settings
    }
}

/// This instance's open notification streams (`GET /v1/notifications/stream`), by account.
///
/// - A stream is opened for a signed-in account and receives each new notification of theirs that
///   their settings allow, in the order delivered; at most `perAccount` are open per account, and
///   opening one more closes the oldest.
/// - A stream is closed (its events end) when its account's sessions change (sign-out, withdrawal:
///   the client reconnects, and a revoked session is refused), when the channel that tells of new
///   notifications is lost (`suspend`: the client reconnects and replays what it missed), and on
///   shutdown (`closeAll`).
/// - While suspended no stream opens: `open` returns nil (the caller answers `503`).
/// - A slow reader loses its oldest undelivered events beyond `buffer`, never the server's memory;
///   reconnecting with `Last-Event-ID` replays them.
public final class LiveNotifications: Sendable {
    public let perAccount: Int
    let buffer: Int

    /// One open stream: its events, and its key to close it.
    public struct Stream: Sendable {
        public let id: UInt64
        public let account: UUID
        public let events: AsyncStream<AccountNotification>
    }

    private struct Storage {
        var listening = false
        var nextID: UInt64 = 0
        /// Per account, its streams' continuations, oldest first.
        var streams: [UUID: [(id: UInt64, continuation: AsyncStream<AccountNotification>.Continuation)]] = [:]
        var count = 0
    }

    private let storage = Mutex(Storage())

    public init(perAccount: Int = 5, buffer: Int = 256) {
        self.perAccount = perAccount
        self.buffer = buffer
    }

    /// How many streams are open on this instance.
    public var count: Int { self.storage.withLock { $0.count } }

    /// Opens a stream for `account`, closing its oldest beyond `perAccount`; nil while suspended.
    public func open(account: UUID) -> Stream? {
        let (stream, continuation) = AsyncStream.makeStream(of: AccountNotification.self, bufferingPolicy: .bufferingNewest(self.buffer))
        let opened: (id: UInt64, evicted: [AsyncStream<AccountNotification>.Continuation])? = self.storage.withLock { storage in
            guard storage.listening else { return nil }
            storage.nextID &+= 1
            var streams = storage.streams[account, default: []]
            streams.append((storage.nextID, continuation))
            let evicted = streams.count > self.perAccount ? streams.prefix(streams.count - self.perAccount).map(\.continuation) : []
            streams.removeFirst(evicted.count)
            storage.streams[account] = streams
            storage.count += 1 - evicted.count
            return (storage.nextID, evicted)
        }
        guard let opened else {
            continuation.finish()
            return nil
        }
        let id = opened.id
        for old in opened.evicted { old.finish() }
        continuation.onTermination = { [weak self] _ in self?.remove(id, of: account) }
        return Stream(id: id, account: account, events: stream)
    }

    /// Which of `accounts` have a stream open here.
    public func watched(_ accounts: some Sequence<UUID>) -> Set<UUID> {
        self.storage.withLock { storage in Set(accounts.filter { storage.streams[$0] != nil }) }
    }

    /// Hands each notification to its recipient's streams, if their settings allow its type.
    public func deliver(_ items: [LiveNotification]) {
        let targets = self.storage.withLock { storage in
            items.compactMap { item in
                item.settings.allows(item.notification.type) ? storage.streams[item.recipient].map { ($0.map(\.continuation), item) } : nil
            }
        }
        for (continuations, item) in targets {
            for continuation in continuations { continuation.yield(item.notification) }
        }
    }

    /// Closes every stream of `account` (its sessions changed).
    public func close(account: UUID) {
        let closed = self.storage.withLock { storage in
            let streams = storage.streams.removeValue(forKey: account) ?? []
            storage.count -= streams.count
            return streams
        }
        for stream in closed { stream.continuation.finish() }
    }

    /// Closes one stream.
    public func close(_ stream: Stream) {
        self.remove(stream.id, of: stream.account)?.finish()
    }

    /// Closes every stream and keeps opening them.
    public func closeAll() {
        let closed = self.storage.withLock { storage in
            defer {
                storage.streams = [:]
                storage.count = 0
            }
            return storage.streams.values.flatMap { $0 }
        }
        for stream in closed { stream.continuation.finish() }
    }

    /// The channel is heard: streams may open.
    public func resume() {
        self.storage.withLock { $0.listening = true }
    }

    /// The channel is lost: closes every stream, and opens none until `resume()`.
    public func suspend() {
        self.storage.withLock { $0.listening = false }
        self.closeAll()
    }

    /// Forgets a stream (closed, or ended by its reader); its continuation if it was still here.
    @discardableResult
    private func remove(_ id: UInt64, of account: UUID) -> AsyncStream<AccountNotification>.Continuation? {
        self.storage.withLock { storage in
            guard var streams = storage.streams[account], let index = streams.firstIndex(where: { $0.id == id }) else { return nil }
            let removed = streams.remove(at: index).continuation
            storage.count -= 1
            storage.streams[account] = streams.isEmpty ? nil : streams
            return removed
        }
    }
}
