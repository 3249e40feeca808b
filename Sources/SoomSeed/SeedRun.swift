import Foundation
import Logging
import PostgresNIO
import SoomData

/// One run on one connection (temporary tables live in its session).
///
/// `execute(allowExistingAccounts:)` drives the phases in order; the phases themselves live in
/// `SeedRun+Staging.swift` (generate and tally into temporary tables) and
/// `SeedRun+Writing.swift` (the one transaction that writes the real tables, and the recount).
/// `Seeder.run` creates one per call: it is not meant to be reused.
struct SeedRun {
    let connection: PostgresConnection
    let logger: Logger
    let plan: Seeder.Plan
    let progress: @Sendable (Seeder.Event) -> Void
    var summary = Seeder.Summary()
    /// Accounts staged by this run (set by `generateAccounts`): the ones follows and favourites go to.
    var stagedAccounts = 0

    /// The seed's "now", read from the server: everything generated happens before it.
    var anchor = Date()
    /// The seconds `created_at` spreads over.
    var span: Double { Double(self.plan.days) * 86_400 }
    /// Accounts created before the window (early adopters): they can author the first cards.
    var earlyAccounts: Int { max(1, self.plan.accounts / 5) }
    /// A prime that does not divide the card count: `rank * p mod n` scatters popularity ranks
    /// over cards of all ages (viral cards are not simply the oldest ones).
    var scatter: Int64 = 2_654_435_761

    init(connection: PostgresConnection, logger: Logger, plan: Seeder.Plan, progress: @escaping @Sendable (Seeder.Event) -> Void) {
        self.connection = connection
        self.logger = logger
        self.plan = plan
        self.progress = progress
        while plan.cards > 0 && Int64(plan.cards) % self.scatter == 0 { self.scatter += 2 }
    }

    /// Runs every phase and returns what was added. Throws `SeedError.databaseNotEmpty` (before
    /// changing anything) when accounts exist and `allowExistingAccounts` is false; any failure
    /// while writing rolls the real tables back to how they were.
    mutating func execute(allowExistingAccounts: Bool) async throws -> Seeder.Summary {
        let started = ContinuousClock.now
        let existing = try await self.count("SELECT count(*) FROM accounts")
        if existing > 0 && !allowExistingAccounts { throw SeedError.databaseNotEmpty(accounts: existing) }
        if existing > 0 { self.progress(.note("adding to \(existing) existing accounts (--force)")) }
        let names = try SeedNicknames.choose(accounts: self.plan.accounts, offset: existing)

        // Bulk-work session: room for the temporary tables in memory, big sorts and hashes, no timeouts.
        let settings: [PostgresQuery] = [
            "SET temp_buffers = '512MB'", "SET work_mem = '256MB'", "SET maintenance_work_mem = '512MB'", "SET statement_timeout = 0",
            "SET idle_in_transaction_session_timeout = 0", "SET synchronous_commit = off", "SET jit = off",
        ]
        for setting in settings {
            try await self.execute(setting)
        }
        self.anchor = try RowCells.decode(try await self.connection.query("SELECT now()", logger: self.logger).collect()[0], Date.self)
        try await self.createStagingTables()

        try await self.phase(.accounts, total: self.plan.accounts) { run in try await run.generateAccounts(names: names, offset: existing) }
        try await self.phase(.cards, total: self.plan.cards) { run in try await run.generateCards() }
        try await self.phase(.comments, total: self.plan.comments) { run in try await run.generateComments() }
        try await self.phase(.likes, total: self.plan.likes) { run in try await run.generateLikes() }
        try await self.phase(.follows, total: self.plan.followCount) { run in try await run.generateFollows() }
        try await self.phase(.tally, total: 0) { run in try await run.tally() }

        // All or nothing: the real tables change in one transaction. Its commit is synchronous
        // (asynchronous commits only serve the staging statements): it costs one flush, and
        // "done" then means durable.
        try await self.execute("BEGIN")
        do {
            try await self.execute("SET LOCAL synchronous_commit = on")
            let withoutTriggers = try await self.disableTriggersIfSafe()
            let staged = try await self.stagedCounts()
            try await self.phase(.writeAccounts, total: staged.accounts) { run in try await run.writeAccounts() }
            try await self.phase(.writeCards, total: staged.cards) { run in try await run.writeCards() }
            try await self.phase(.writeLikes, total: staged.likes) { run in try await run.writeLikes() }
            try await self.phase(.writeFollows, total: staged.follows) { run in try await run.writeFollows() }
            try await self.phase(.favorites, total: self.plan.favoriteCount) { run in try await run.writeFavorites() }
            try await self.phase(.counters, total: 0) { run in
                if withoutTriggers {
                    try await run.execute("SET LOCAL session_replication_role = origin")
                    try await run.verifyReferences()
                }
                let recounted = try await run.recountCounters()
                // The popular ranking's next round reads every card: with triggers off, migration
                // 0016's did not record the seeded cards as changed.
                try await run.execute("DELETE FROM popular_candidates")
                return recounted
            }
            try await self.execute("COMMIT")
        } catch {
            try? await self.execute("ROLLBACK")
            throw error
        }
        // Synchronous from here on: VACUUM sets hint bits and marks pages all-visible only once the
        // commit is flushed, which PostgreSQL tracks per group of transactions — any later
        // asynchronous commit (even VACUUM's own ANALYZE) would leave the new pages unmarked.
        try await self.execute("RESET synchronous_commit")
        try await self.phase(.analyze, total: 0) { run in
            // Not in a transaction: sets the visibility map (index-only scans) and hint bits, and the statistics.
            try await run.execute("VACUUM (ANALYZE) accounts, images, cards, likes, follows, favorite_tags")
            return 0
        }
        try await self.execute("DISCARD TEMP")
        self.summary.duration = started.duration(to: .now)
        return self.summary
    }

    /// Runs one phase, timing it; `body` returns the rows it produced.
    private mutating func phase(_ phase: Seeder.Phase, total: Int, _ body: (inout SeedRun) async throws -> Int) async throws {
        self.progress(.started(phase, total: total))
        let started = ContinuousClock.now
        let rows = try await body(&self)
        let report = Seeder.PhaseReport(phase: phase, rows: rows, duration: started.duration(to: .now))
        self.summary.phases.append(report)
        self.progress(.finished(report))
    }

    // MARK: Shared SQL

    // Common table expressions and helpers the staging and writing statements share.

    /// Top-level cards as aligned arrays (position = the popularity scatter's domain). Built
    /// without ORDER BY: one scan feeds all three, and a temporary table (never scanned in
    /// parallel or synchronised) is read in the same order by every statement of the run.
    /// No NULLs (`infinity` for "never expires"): subscripts stay O(1).
    var cardArrays: String {
        """
        top AS MATERIALIZED (
            SELECT array_agg(id) AS ids, array_agg(created_at) AS times, array_agg(coalesce(expires_at, 'infinity')) AS ends
            FROM seed_cards WHERE parent_id IS NULL
        )
        """
    }

    /// Comment cards as aligned arrays, for likes on comments (positions uniform, not scattered).
    var commentArrays: String {
        """
        replies AS MATERIALIZED (
            SELECT array_agg(id) AS ids, array_agg(created_at) AS times FROM seed_cards WHERE parent_id IS NOT NULL
        )
        """
    }

    /// Every staged account, oldest first, for `width_bucket`: who exists at a given time.
    var accountArrays: String {
        """
        people AS MATERIALIZED (
            SELECT array_agg(id ORDER BY created_at, n) AS ids, array_agg(created_at ORDER BY created_at, n) AS times FROM seed_accounts
        )
        """
    }

    /// `1...total` cut into inclusive ranges of `chunkSize`.
    func chunks(_ range: ClosedRange<Int>) -> [(Int, Int)] {
        stride(from: range.lowerBound, through: range.upperBound, by: self.plan.chunkSize).map {
            ($0, min($0 + self.plan.chunkSize - 1, range.upperBound))
        }
    }

    /// Piece `index` of `count` of the id space, for range chunks: its lowest uuid, and the lowest
    /// of the next piece (nil for the last piece).
    static func uuidRange(_ index: Int, of count: Int) -> (low: UUID, high: UUID?) {
        (Self.uuidBoundary(index, of: count), index + 1 < count ? Self.uuidBoundary(index + 1, of: count) : nil)
    }

    /// The uuid at `index / count` of the id space (first 8 bytes).
    private static func uuidBoundary(_ index: Int, of count: Int) -> UUID {
        let value = UInt64.max / UInt64(count) * UInt64(index)
        let hex = String(value, radix: 16)
        let padded = String(repeating: "0", count: 16 - hex.count) + hex
        return UUID(uuidString: "\(padded.prefix(8))-\(padded.dropFirst(8).prefix(4))-\(padded.suffix(4))-0000-000000000000")!
    }

    /// Runs a statement for its effect, discarding any rows.
    func execute(_ query: PostgresQuery) async throws {
        _ = try await self.connection.query(query, logger: self.logger).collect()
    }

    /// The first column of the first row as an `Int` (a `count(*)`), 0 when there is no row.
    func count(_ query: PostgresQuery) async throws -> Int {
        try await self.connection.query(query, logger: self.logger).collect().first.map { try RowCells.decode($0, Int.self) } ?? 0
    }
}
