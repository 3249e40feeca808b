import ArgumentParser
import Foundation
import Logging
import SoomData
import SoomSeed

extension Soom {
    struct Seed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fill a database with realistic demo or benchmark data, fast.",
            discussion: """
                Migrates the database, then adds accounts, top-level cards, comment cards, likes, follows and \
                favourite tags that look like a real Soom: Korean and English text, built-in backgrounds (a few \
                uploaded ones), 0–3 long-tailed tags, some locations around Korean and other cities, ~3% stories, \
                activity growing towards now, heavy posters and viral cards. The social graph is long-tailed: the \
                oldest account is followed by every other one (when --follows allows), a few by thousands, most by a \
                handful. Favourite tags (at most 9 per account) are drawn from the tags the cards carry, popular ones \
                far more often. Everything happens before now, in order: an account exists before it posts, a \
                comment or like comes after its card, a follow after both accounts exist. Counters (like_count, \
                comment_count, card_count, follower_count, following_count) are exact.

                Uses DATABASE_URL, or the embedded cluster under --data-directory when it is not set (started and \
                stopped by this command). The rows are generated with set-based SQL into temporary tables, then \
                written in a single transaction: interrupting it leaves the database unchanged. The default size \
                takes a few minutes and needs about 2 GB of disk for the data and the write-ahead log.

                A database that already has accounts is refused unless --force is given. The seeded accounts have \
                placeholder public keys: nobody can sign in as them.

                Examples:
                  soom seed       (50k accounts, 1M cards, 200k comment cards, 2M likes,
                                   1M follows, 100k favourite tags)
                  soom seed --accounts 2000 --cards 20000 --comments 4000 --likes 40000
                  soom seed --accounts 2000 --cards 20000 --follows 100000 --favorites 0
                  DATABASE_URL=postgres://soom:secret@db:5432/bench soom seed --days 30
                """)

        @Option(help: "Accounts to create.")
        var accounts: Int = 50_000

        @Option(help: "Top-level cards to create.")
        var cards: Int = 1_000_000

        @Option(help: "Comment cards to create, each answering a top-level card.")
        var comments: Int = 200_000

        @Option(help: "Likes to create: unique (card, account) pairs.")
        var likes: Int = 2_000_000

        @Option(
            help: ArgumentHelp(
                "Follows to create: unique (follower, followee) pairs of distinct seeded accounts, at most accounts × (accounts − 1). "
                    + "(default: 20 × accounts, at most every possible pair)", valueName: "n"))
        var follows: Int?

        @Option(
            help: ArgumentHelp(
                "Favourite tags to create, at most 9 per account (the API's limit), so at most 9 × accounts. (default: 2 × accounts)",
                valueName: "n"))
        var favorites: Int?

        @Option(help: "Spread creation times over the last <days> days.")
        var days: Int = 60

        @Flag(help: "Seed even though the database already has accounts (the new rows are added next to them).")
        var force = false

        @OptionGroup var options: DatabaseOptions

        var plan: Seeder.Plan {
            Seeder.Plan(
                accounts: self.accounts, cards: self.cards, comments: self.comments, likes: self.likes, follows: self.follows,
                favorites: self.favorites, days: self.days)
        }

        func validate() throws {
            do {
                try self.plan.validate()
            } catch {
                throw ValidationError(error.description)
            }
        }

        func run() async throws {
            self.options.logFormat.bootstrap()
            let logger = try self.options.logger()
            let plan = self.plan
            let force = self.force
            try await self.options.withDatabase { database in
                try await DatabaseMigration.run(database, logger: logger)
                SeedOutput.line(
                    "Seeding \(database): \(SeedOutput.number(plan.accounts)) accounts, \(SeedOutput.number(plan.cards)) cards, "
                        + "\(SeedOutput.number(plan.comments)) comment cards, \(SeedOutput.number(plan.likes)) likes, "
                        + "\(SeedOutput.number(plan.followCount)) follows, \(SeedOutput.number(plan.favoriteCount)) favourite tags over \(plan.days) days."
                )
                let summary = try await Seeder(configuration: database, logger: logger).run(
                    plan, allowExistingAccounts: force, progress: SeedOutput.report)
                SeedOutput.line("")
                SeedOutput.line("Phase                                         Rows      Time")
                for phase in summary.phases {
                    let name = phase.phase.title.padding(toLength: 40, withPad: " ", startingAt: 0)
                    SeedOutput.line("\(name) \(SeedOutput.number(phase.rows, width: 11)) \(SeedOutput.seconds(phase.duration, width: 9))")
                }
                SeedOutput.line(
                    "Done in \(SeedOutput.seconds(summary.duration)): added \(SeedOutput.number(summary.accounts)) accounts, "
                        + "\(SeedOutput.number(summary.cards)) cards, \(SeedOutput.number(summary.comments)) comment cards, "
                        + "\(SeedOutput.number(summary.likes)) likes, \(SeedOutput.number(summary.follows)) follows, "
                        + "\(SeedOutput.number(summary.favorites)) favourite tags and \(SeedOutput.number(summary.images)) images.")
            }
        }
    }
}

/// Progress lines on standard output, written at once (also when piped to a file).
enum SeedOutput {
    static func report(_ event: Seeder.Event) {
        switch event {
        case .started(let phase, let total):
            Self.line(total > 0 ? "▸ \(phase.title) (\(Self.number(total)))…" : "▸ \(phase.title)…")
        case .progress(let phase, let done, let total):
            let percent = total > 0 ? Int((Double(done) / Double(total) * 100).rounded(.down)) : 100
            Self.line("    \(phase.rawValue): \(Self.number(done))/\(Self.number(total)) (\(percent)%)")
        case .finished(let report):
            Self.line("  ✓ \(report.phase.title): \(Self.number(report.rows)) rows in \(Self.seconds(report.duration))")
        case .note(let text):
            Self.line("  note: \(text)")
        }
    }

    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// `1234567` → `1,234,567`, right-aligned to `width`.
    static func number(_ value: Int, width: Int = 0) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped += "," }
            grouped.append(digit)
        }
        let text = (value < 0 ? "-" : "") + grouped
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// `12.3 s`, right-aligned to `width`.
    static func seconds(_ duration: Duration, width: Int = 0) -> String {
        let (seconds, attoseconds) = duration.components
        let text = String(format: "%.1f s", Double(seconds) + Double(attoseconds) / 1e18)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
