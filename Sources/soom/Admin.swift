import ArgumentParser
import Foundation
import SoomData

extension Soom {
    /// `soom admin …`: what an operator does by hand, against DATABASE_URL.
    struct Admin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Moderate and run a Soom database: hide cards, restrict accounts, see reports and counts; post notices, set client versions, switch maintenance, refuse words.",
            discussion: """
                Every command works against DATABASE_URL (postgres://user:password@host:port/database), or the embedded \
                cluster under --data-directory when it is not set (the one a running `soom serve` uses, left running), applies pending migrations first, and changes what it \
                changes in one transaction with every counter kept exact, like the server does. Ids are the ones the API \
                shows (a card's "id", an account's "id"); `soom admin reports` lists the most-reported cards with theirs.

                Examples:
                  soom admin reports --limit 20
                  soom admin hide 0b6f…          (hide a card, as four reports would, without restricting its author)
                  soom admin unhide 0b6f…        (show it again; its reports are cleared)
                  soom admin restrict 7c2e… --days 7
                  soom admin unrestrict 7c2e…
                  soom admin rings               (reporters who hid several cards of one author together)
                  soom admin undo-reports 1a2b… 3c4d…   (show again what those reporters hid, take back its restrictions)
                  soom admin counts
                  soom admin notice add --kind notice --title "점검 안내" --body "…"   (prints the new notice's id)
                  soom admin client-version set ios --latest 1.4.0 --minimum 1.2.0
                  soom admin maintenance on --until 2026-12-01T03:00:00Z
                  soom admin words add 욕설
                  soom admin card post --content "새 기능 안내" --pin-until 2026-12-08T00:00:00Z   (prints the card's id)

                What the server instances read (maintenance, client versions, refused words, pinned cards) reaches every \
                running instance within two seconds.
                """,
            subcommands: [
                Reports.self, Hide.self, Unhide.self, Restrict.self, Unrestrict.self, Rings.self, UndoReports.self, Counts.self,
                Notices.self, ClientVersion.self, Maintenance.self, Words.self, Cards.self,
            ])
    }
}

/// Runs one moderation action with the database options, printing its result on standard output.
private func administer(_ options: DatabaseOptions, _ action: @escaping @Sendable (PostgresModeration) async throws -> String) async throws {
    try await administer(options) { database in try await action(PostgresModeration(database: database)) }
}

/// Runs one admin action on the database of `options`, printing its result on standard output.
func administer(_ options: DatabaseOptions, _ action: @escaping @Sendable (Database) async throws -> String) async throws {
    options.logFormat.bootstrap()
    var logger = try options.logger()
    // Migration notices would bury the answer: only warnings and worse, unless asked for more.
    if logger.logLevel < .warning, ProcessInfo.processInfo.environment["SOOM_LOG_LEVEL"] == nil { logger.logLevel = .warning }
    let output = try await options.withDatabase(besideServer: true) { database in
        try await Database.administering(database, logger: logger, action)
    }
    FileHandle.standardOutput.write(Data((output + "\n").utf8))
}

/// An id argument: a UUID as the API shows it. Parsed once, by ArgumentParser (`transform:`),
/// so a malformed id is a usage error before any database work.
func parseID(_ text: String, _ what: String) throws -> UUID {
    guard let id = UUID(uuidString: text) else { throw ValidationError("\(text) is not \(what) id (a UUID such as 0b6f1c2e-…)") }
    return id
}

/// An id as the API shows it (lowercase), for the commands' answers.
func shown(_ id: UUID) -> String {
    id.uuidString.lowercased()
}

extension Soom.Admin {
    struct Reports: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the most-reported cards, hidden or not, most reports first.",
            discussion: "One line per card: reports, hidden or visible, the card id, its author's id, reports by reason, the start of its text.")

        @Option(help: "How many cards to list (1-1000).")
        var limit: Int = 20

        @OptionGroup var options: DatabaseOptions

        func validate() throws {
            guard (1...1000).contains(self.limit) else { throw ValidationError("--limit must be between 1 and 1000") }
        }

        func run() async throws {
            let limit = self.limit
            try await administer(self.options) { moderation in
                let cards = try await moderation.mostReported(limit: limit)
                guard !cards.isEmpty else { return "No reports." }
                return cards.map { card in
                    let reasons = card.reasons.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) \($0.value)" }.joined(
                        separator: ", ")
                    let preview = card.preview.replacingOccurrences(of: "\n", with: " ")
                    return "\(card.reports)\t\(card.hidden ? "hidden " : "visible")\tcard \(shown(card.cardID))"
                        + "\tauthor \(shown(card.authorID))\t\(reasons)\t\(preview)"
                }.joined(separator: "\n")
            }
        }
    }

    struct Hide: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Hide a card as reports would: it leaves every list and count, and its author is told.",
            discussion: "Its author is not restricted by this; use `soom admin restrict` for that.")

        @Argument(help: "The card's id.", transform: { try parseID($0, "a card") })
        var card: UUID

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            try await administer(self.options) { moderation in
                try await moderation.hide(cardID: self.card)
                    ? "Hidden card \(shown(self.card))." : "No visible card \(shown(self.card)) (unknown, or hidden already)."
            }
        }
    }

    struct Unhide: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a hidden card again: it counts once more, and its reports are cleared.",
            discussion: "Its author's restriction, if any, stays; use `soom admin unrestrict` to lift it.")

        @Argument(help: "The card's id.", transform: { try parseID($0, "a card") })
        var card: UUID

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            try await administer(self.options) { moderation in
                try await moderation.unhide(cardID: self.card) ? "Card \(shown(self.card)) is visible again." : "No hidden card \(shown(self.card))."
            }
        }
    }

    struct Restrict: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep an account from posting cards and comment cards for a number of days; it is told.",
            discussion: """
                The restriction ends at the later of its current end and now + --days; with --replace, exactly at \
                now + --days (which may shorten it). Reading and everything else keep working.
                """)

        @Argument(help: "The account's id.", transform: { try parseID($0, "an account") })
        var account: UUID

        @Option(help: "Days from now (1-3650).")
        var days: Int

        @Flag(help: "End exactly after --days, even when a running restriction ends later.")
        var replace = false

        @OptionGroup var options: DatabaseOptions

        func validate() throws {
            guard (1...3650).contains(self.days) else { throw ValidationError("--days must be between 1 and 3650") }
        }

        func run() async throws {
            let until = Date().addingTimeInterval(Double(self.days) * 86_400)
            let replace = self.replace
            try await administer(self.options) { moderation in
                guard let end = try await moderation.restrict(accountID: self.account, until: until, replace: replace) else {
                    return "No account \(shown(self.account))."
                }
                return "Account \(shown(self.account)) may not post until \(end.formatted(Date.ISO8601FormatStyle()))."
            }
        }
    }

    struct Unrestrict: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let a restricted account post again, now.")

        @Argument(help: "The account's id.", transform: { try parseID($0, "an account") })
        var account: UUID

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            try await administer(self.options) { moderation in
                try await moderation.unrestrict(accountID: self.account)
                    ? "Account \(shown(self.account)) may post again." : "No account \(shown(self.account))."
            }
        }
    }

    struct Rings: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List reporters who hid several cards of one author together (report rings).",
            discussion: """
                One line per author with two or more reporters who each reported at least --min-cards of the author's \
                hidden cards: the author's id, how many of their cards are hidden, and each such reporter's id with how \
                many of them it reported. `soom admin undo-reports` takes back what chosen reporters did.
                """)

        @Option(name: .customLong("min-cards"), help: "Hidden cards of one author a reporter must have reported (2-1000).")
        var minimumCards: Int = 2

        @Option(help: "How many authors to list (1-1000).")
        var limit: Int = 50

        @OptionGroup var options: DatabaseOptions

        func validate() throws {
            guard (2...1000).contains(self.minimumCards) else { throw ValidationError("--min-cards must be between 2 and 1000") }
            guard (1...1000).contains(self.limit) else { throw ValidationError("--limit must be between 1 and 1000") }
        }

        func run() async throws {
            let (minimum, limit) = (self.minimumCards, self.limit)
            try await administer(self.options) { moderation in
                let rings = try await moderation.rings(minimumCards: minimum, limit: limit)
                guard !rings.isEmpty else { return "No report rings." }
                return rings.map { ring in
                    "author \(shown(ring.authorID))\t\(ring.hiddenCards) hidden\treporters "
                        + ring.reporters.map { "\(shown($0.id)) (\($0.cards))" }.joined(separator: ", ")
                }.joined(separator: "\n")
            }
        }
    }

    struct UndoReports: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "undo-reports",
            abstract: "Take back what some reporters did: show their hidden cards again and lift the restrictions those hides started.",
            discussion: """
                In one transaction: every hidden card any of the accounts reported is shown again (its reports cleared, \
                its counts restored), each restriction step those hides started is taken back (the author's next \
                restriction is shorter again, and a running one is lifted), and every other report of these accounts \
                is deleted. The accounts themselves stay; restrict or watch them as you see fit.
                """)

        @Argument(help: "The reporters' account ids.", transform: { try parseID($0, "an account") })
        var reporters: [UUID]

        @OptionGroup var options: DatabaseOptions

        func validate() throws {
            guard !self.reporters.isEmpty else { throw ValidationError("name at least one reporter's id") }
        }

        func run() async throws {
            let reporters = self.reporters
            try await administer(self.options) { moderation in
                let undone = try await moderation.undoReports(by: reporters)
                return "Shown again: \(undone.cards.count) card(s)\(undone.cards.map { " " + shown($0) }.joined())."
                    + "\nRestrictions lifted: \(undone.authors.count) account(s)\(undone.authors.map { " " + shown($0) }.joined())."
            }
        }
    }

    struct Counts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show how many accounts, cards, tags, reports and sessions there are (exact counts).")

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            try await administer(self.options) { moderation in
                try await moderation.counts().map { "\($0.name.padding(toLength: 20, withPad: " ", startingAt: 0)) \($0.count)" }
                    .joined(separator: "\n")
            }
        }
    }
}
