import Logging
import PostgresNIO
import SoomData

/// Fills a database with realistic demo and benchmark data (`soom seed`), fast.
///
/// Every phase is a handful of set-based statements — `generate_series`, bound word arrays,
/// `width_bucket` over sorted arrays — never a statement per row:
///
/// 1. **Generate** accounts, top-level cards, comment cards, likes and follows into
///    session-private temporary tables (no WAL, no indexes to maintain), in chunks so progress
///    shows and memory stays bounded. Likes and follows are unique pairs (a primary key plus
///    `ON CONFLICT DO NOTHING`, topped up until the requested number is reached).
/// 2. **Tally** like and comment counts per card, top-level cards per author, and followers and
///    followings per account there.
/// 3. **Write** everything into `accounts`, `images`, `cards`, `card_tags`, `tags`, `likes` and
///    `follows` in one transaction, oldest first and with the counters already exact, then choose
///    favourite tags among the `tags` rows (popular tags more often, at most nine per account) into
///    `favorite_tags`: a failure (or Ctrl-C) leaves the database as it was, and the tables come
///    out unbloated, in `created_at` order like a real one.
/// 4. **Recount** the counters set-based over the whole tables (fixes nothing unless something
///    else wrote meanwhile), then `VACUUM (ANALYZE)`.
///
/// The data is plausible on purpose: activity grows towards the present, accounts only act after
/// they were created, likes and comments come after their card (within a story's 24 hours), a few
/// heavy posters and viral cards, a long-tailed tag vocabulary, Korean and English text, a
/// long-tailed social graph (one account followed by everyone else, most by a few), follows made
/// after both accounts existed.
public struct Seeder: Sendable {
    /// The steps of a run, in order.
    public enum Phase: String, Sendable, CaseIterable {
        case accounts, cards, comments, likes, follows, tally
        case writeAccounts = "write-accounts"
        case writeCards = "write-cards"
        case writeLikes = "write-likes"
        case writeFollows = "write-follows"
        case favorites
        case counters, analyze

        /// What the phase does, for progress lines.
        public var title: String {
            switch self {
            case .accounts: "generate accounts"
            case .cards: "generate cards"
            case .comments: "generate comment cards"
            case .likes: "generate likes"
            case .follows: "generate follows"
            case .tally: "tally counters"
            case .writeAccounts: "write accounts"
            case .writeCards: "write cards, comment cards and images"
            case .writeLikes: "write likes"
            case .writeFollows: "write follows"
            case .favorites: "choose and write favourite tags"
            case .counters: "recount counters"
            case .analyze: "vacuum and analyze"
            }
        }
    }

    /// How long one phase took and how many rows it produced.
    public struct PhaseReport: Sendable {
        public let phase: Phase
        public let rows: Int
        public let duration: Duration
    }

    /// What `run` reports as it goes.
    public enum Event: Sendable {
        case started(Phase, total: Int)
        case progress(Phase, done: Int, total: Int)
        case finished(PhaseReport)
        case note(String)
    }

    /// The rows a run added, and its timings.
    public struct Summary: Sendable {
        public var accounts = 0
        public var cards = 0
        public var comments = 0
        public var likes = 0
        /// Follows between seeded accounts.
        public var follows = 0
        /// Favourite tags of seeded accounts.
        public var favorites = 0
        /// Uploaded backgrounds (a tiny PNG each) of the few cards that do not use a built-in one.
        public var images = 0
        /// Counters the final recount had to correct (0 unless something else wrote meanwhile).
        public var correctedCounters = 0
        public var phases: [PhaseReport] = []
        public var duration: Duration = .zero
    }

    public let configuration: DatabaseConfiguration
    public let logger: Logger

    public init(configuration: DatabaseConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Seeds the (migrated) database: opens a pool, works on one connection, closes the pool.
    /// - Parameters:
    ///   - allowExistingAccounts: seed next to accounts that are already there; otherwise a
    ///     database with accounts is refused with `SeedError.databaseNotEmpty`, changing nothing.
    ///   - progress: called as phases start, advance and finish.
    public func run(
        _ plan: Plan, allowExistingAccounts: Bool = false, progress: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws -> Summary {
        try plan.validate()
        let client = PostgresClient(configuration: self.configuration.clientConfiguration, backgroundLogger: self.logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            // Let run() start first: leasing before it only works after a warning in the log.
            try await Task.sleep(for: .milliseconds(50))
            return try await client.withConnection { connection in
                var run = SeedRun(connection: connection, logger: self.logger, plan: plan, progress: progress)
                return try await run.execute(allowExistingAccounts: allowExistingAccounts)
            }
        }
    }
}
