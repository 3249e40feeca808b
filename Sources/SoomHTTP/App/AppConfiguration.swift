import Logging
import SoomData

/// Everything the server is configured with (the `soom serve` options and environment).
public struct AppConfiguration: Sendable {
    public var hostname: String
    public var port: Int
    public var database: DatabaseConfiguration
    public var logLevel: Logger.Level
    /// Apply pending migrations before serving (always true for `soom serve`; tests migrate a template once).
    public var migrateOnStart: Bool
    /// Run the periodic jobs (popular ranking, story expiry) in this instance.
    public var backgroundJobs: Bool
    /// How long a read of the top ten tags may be served again, in seconds (0…1; 0 = always read).
    public var tagRankingCacheLifetime: Double

    public init(
        hostname: String = "127.0.0.1", port: Int = 8080, database: DatabaseConfiguration, logLevel: Logger.Level = .info,
        migrateOnStart: Bool = true, backgroundJobs: Bool = true, tagRankingCacheLifetime: Double = 0.25
    ) {
        self.hostname = hostname
        self.port = port
        self.database = database
        self.logLevel = logLevel
        self.migrateOnStart = migrateOnStart
        self.backgroundJobs = backgroundJobs
        self.tagRankingCacheLifetime = tagRankingCacheLifetime
    }
}
