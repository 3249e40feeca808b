import Foundation

/// What the tag use cases work with.
public struct TagEnvironment: Sendable {
    /// A caller has at most this many favourite tags.
    public static let favoriteLimit = 9
    /// The top ten is ten.
    public static let rankedSize = 10

    public let tags: any TagRepository
    public let rankingCache: TagRankingCache
    /// The operators' switches; a tag favourited is checked against their refused words.
    public let switches: OperatorSwitches
    public let now: @Sendable () -> Date

    /// - Parameter rankingCacheLifetime: how long a top-ten read may be reused (0…1 s; 0: never).
    public init(
        tags: any TagRepository, rankingCacheLifetime: TimeInterval = 0, switches: OperatorSwitches = OperatorSwitches(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.tags = tags
        self.rankingCache = TagRankingCache(lifetime: rankingCacheLifetime)
        self.switches = switches
        self.now = now
    }
}
