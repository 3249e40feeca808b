import Foundation
import Synchronization

/// What operators switch at run time (`soom admin maintenance|client-version|words|card`), as this
/// instance last read it. `OperatorSwitchesRefresher` reads the database's every two seconds, so
/// an operator's change reaches every instance within that time, without a restart.
public final class OperatorSwitches: Sendable {
    /// One reading of the switches.
    public struct Settings: Sendable, Equatable {
        /// While ahead, every `/v1` write is `503 maintenance` until then.
        public var maintenanceUntil: Date?
        /// The operator's versions by platform; a platform left out is `ClientVersionPolicy.unset`.
        public var clientVersions: [ClientPlatform: ClientVersionPolicy]
        public var refusedWords: RefusedWords
        /// The live operator cards pinned now, newest first, at most `Pinned.shown`, each with its pin's end.
        public var pinned: [Pinned]

        public init(
            maintenanceUntil: Date? = nil, clientVersions: [ClientPlatform: ClientVersionPolicy] = [:], refusedWords: RefusedWords = .none,
            pinned: [Pinned] = []
        ) {
            self.maintenanceUntil = maintenanceUntil
            self.clientVersions = clientVersions
            self.refusedWords = refusedWords
            self.pinned = pinned
        }
    }

    /// An operator card pinned to the top of the latest feed's first page until `until`.
    public struct Pinned: Sendable, Equatable {
        /// Pinned cards lead the first page at most this many at once (the newest).
        public static let shown = 3

        public let card: UUID
        public let until: Date

        public init(card: UUID, until: Date) {
            self.card = card
            self.until = until
        }
    }

    private let current: Mutex<Settings>

    public init(_ settings: Settings = Settings()) {
        self.current = Mutex(settings)
    }

    /// Replaces what this instance knows with a fresh reading.
    public func update(_ settings: Settings) {
        self.current.withLock { $0 = settings }
    }

    /// The end of the maintenance running at `now`; nil when writes are served.
    public func maintenance(at now: Date) -> Date? {
        self.current.withLock { $0.maintenanceUntil }.flatMap { $0 > now ? $0 : nil }
    }

    public var refusedWords: RefusedWords { self.current.withLock { $0.refusedWords } }

    /// The operator cards pinned at `now`, newest first.
    public func pinnedCards(at now: Date) -> [UUID] {
        self.current.withLock { $0.pinned }.filter { $0.until > now }.map(\.card)
    }

    public func clientVersions(of platform: ClientPlatform) -> ClientVersionPolicy {
        self.current.withLock { $0.clientVersions[platform] } ?? .unset
    }
}
