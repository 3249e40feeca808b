import Logging
import SoomData
import SoomDomain
import SoomHTTP

/// Everything the server is configured with (the `soom serve` options and environment).
public struct AppConfiguration: Sendable {
    public var hostname: String
    public var port: Int
    public var database: DatabaseConfiguration
    public var logLevel: Logger.Level
    /// Apply pending migrations before serving (always true for `soom serve`; tests migrate a template once).
    public var migrateOnStart: Bool
    /// Run the periodic jobs (`buildApplication`'s `jobs`) in this instance.
    public var backgroundJobs: Bool
    /// How long a read of the top ten tags may be served again, in seconds (0…1; 0 = always read).
    public var tagRankingCacheLifetime: Double
    /// The longest a checked session is answered from memory, in seconds (0 = always read); see `SessionCache`.
    public var sessionCacheLifetime: Double
    /// The longest what readers share (single cards, the cards the first pages of the feeds hold,
    /// the nearby feed's chunks) is answered from memory, in seconds (0…1; 0 = always read); see
    /// `FeedPageCache`.
    public var feedCacheLifetime: Double
    /// Half a second: what is opened twice a second or more is read once per lifetime.
    public static let defaultFeedCacheLifetime: Double = 0.5
    /// The longest a viewer's book of likes (up to 1024 likes) is answered from memory, in seconds
    /// (0 = read with every page); see `ViewerMarkCache`.
    public var marksCacheLifetime: Double
    /// When reports hide a card and how long its author is restricted.
    public var moderation: ModerationPolicy
    /// The `/v1` rate limits of this instance; nil switches them off (`SOOM_RATE_LIMIT=off`).
    public var rateLimits: RateLimits?
    /// Count unauthenticated callers by the last `X-Forwarded-For` entry instead of the connection's
    /// peer: only behind a proxy that sets it (otherwise clients could pick their own address).
    public var trustForwardedFor: Bool
    /// The bearer token `/metrics` requires; nil switches `/metrics` off (`SOOM_METRICS_TOKEN`).
    public var metricsToken: String?
    /// How long a request's database work may take before it is `503 timeout` and rolled back
    /// (the contract's 10 seconds; tests shorten it). PostgreSQL ends statements just before it
    /// (`databaseForRequests`).
    public var requestDeadline: Duration = Database.defaultDeadline
    /// How long a connection may stay open without a whole request head or body part arriving
    /// (between keep-alive requests, or trickling one), `SOOM_IDLE_TIMEOUT`.
    public var idleTimeout: Duration = .seconds(60)
    /// How long a new connection has to send its first request head, `SOOM_HEADER_TIMEOUT`.
    public var requestHeadTimeout: Duration = .seconds(10)
    /// The most connections one client address (an IPv4 address, an IPv6 /64) may hold open; nil:
    /// unbounded. Counts the TCP peer, so it is off when `trustForwardedFor` (behind a proxy),
    /// `SOOM_CONNECTIONS_PER_ADDRESS`.
    public var connectionsPerAddress: Int? = 128
    /// How long the server waits for a request body's bytes before it judges their rate (at least
    /// 1,000 bytes a second over the waiting time, else `408`); tests shorten it.
    public var requestBodyGrace: Duration = .seconds(10)
    /// How often this instance reads the operators' switches (maintenance, client versions,
    /// refused words): an operator's change reaches it within this time.
    public var operatorSwitchesInterval: Duration = .seconds(2)
    /// How often this instance writes the card views and profile visits it noted (`ViewFlushJob`).
    public var viewFlushInterval: Duration = .seconds(1)
    /// How the server reaches devices (`SOOM_VAPID_*`, `SOOM_PUSH_*`).
    public var push = PushConfiguration()
    /// How often an idle notification stream sends `: keep-alive` (the contract: 15 s).
    public var streamKeepAlive: Duration = .seconds(15)
    /// Called with the port once the server listens (useful with `port: 0`, as the tests do).
    public var onServerRunning: (@Sendable (Int) async -> Void)?

    public init(
        hostname: String = "127.0.0.1", port: Int = 8080, database: DatabaseConfiguration, logLevel: Logger.Level = .info,
        migrateOnStart: Bool = true, backgroundJobs: Bool = true, tagRankingCacheLifetime: Double = 0.25,
        sessionCacheLifetime: Double = 10, feedCacheLifetime: Double = Self.defaultFeedCacheLifetime, marksCacheLifetime: Double = 60,
        moderation: ModerationPolicy = .default,
        rateLimits: RateLimits? = RateLimits(), trustForwardedFor: Bool = false,
        metricsToken: String? = nil
    ) {
        self.hostname = hostname
        self.port = port
        self.database = database
        self.logLevel = logLevel
        self.migrateOnStart = migrateOnStart
        self.backgroundJobs = backgroundJobs
        self.tagRankingCacheLifetime = tagRankingCacheLifetime
        self.sessionCacheLifetime = sessionCacheLifetime
        self.feedCacheLifetime = feedCacheLifetime
        self.marksCacheLifetime = marksCacheLifetime
        self.moderation = moderation
        self.rateLimits = rateLimits
        self.trustForwardedFor = trustForwardedFor
        self.metricsToken = metricsToken
        self.onServerRunning = nil
    }
}

extension AppConfiguration {
    /// The database configuration with PostgreSQL ending statements and lock waits just before the
    /// request's deadline (see `Database`): a request gets nearly all of its time, and what
    /// outlives it has no effect.
    var databaseForRequests: DatabaseConfiguration {
        var database = self.database
        database.statementTimeout = max(self.requestDeadline * 0.95, self.requestDeadline - .milliseconds(250))
        return database
    }
}
