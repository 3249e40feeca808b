import ArgumentParser
import Foundation
import SoomData
import SoomDomain

/// Runs one action on the operators' tables (`PostgresOperators`), printing its result.
func operate(_ options: DatabaseOptions, _ action: @escaping @Sendable (PostgresOperators) async throws -> String) async throws {
    try await administer(options) { database in try await action(PostgresOperators(database: database)) }
}

/// A time as the API shows it.
func shown(_ date: Date) -> String {
    date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
}

/// An RFC 3339 time argument, with or without fractional seconds.
func parseTime(_ text: String) throws -> Date {
    if let date = Date(rfc3339: text) { return date }
    throw ValidationError("\(text) is not an RFC 3339 time (such as 2026-12-01T03:00:00Z)")
}

extension Notice.Kind: ExpressibleByArgument {}
extension ClientPlatform: ExpressibleByArgument {}

extension Soom.Admin {
    struct Notices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "notice", abstract: "Post, remove and list the notices every client shows (GET /v1/notices).",
            subcommands: [Add.self, Remove.self, List.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Post a notice now; prints its id and nothing else.")

            @Option(help: "notice, maintenance or news.")
            var kind: Notice.Kind = .notice
            @Option(help: "1-\(Notice.maximumTitleLength) characters.")
            var title: String
            @Option(help: "1-\(Notice.maximumBodyLength) characters.")
            var body: String
            @Option(help: "An http or https link for more (optional).")
            var url: String?

            @OptionGroup var options: DatabaseOptions

            func validate() throws {
                let title = self.title.trimmingCharacters(in: .whitespacesAndNewlines)
                let body = self.body.trimmingCharacters(in: .whitespacesAndNewlines)
                guard (1...Notice.maximumTitleLength).contains(title.count) else {
                    throw ValidationError("--title needs 1 to \(Notice.maximumTitleLength) characters")
                }
                guard (1...Notice.maximumBodyLength).contains(body.count) else {
                    throw ValidationError("--body needs 1 to \(Notice.maximumBodyLength) characters")
                }
                if let url = self.url {
                    guard url.count <= Notice.maximumURLLength, let parsed = URL(string: url),
                        ["http", "https"].contains(parsed.scheme?.lowercased()),
                        parsed.host?.isEmpty == false
                    else { throw ValidationError("--url must be an http or https link of at most \(Notice.maximumURLLength) characters") }
                }
            }

            func run() async throws {
                let (kind, url) = (self.kind, self.url)
                let title = self.title.trimmingCharacters(in: .whitespacesAndNewlines)
                let body = self.body.trimmingCharacters(in: .whitespacesAndNewlines)
                try await operate(self.options) { operators in
                    shown(try await operators.addNotice(kind: kind, title: title, body: body, url: url).id)
                }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove a notice.")

            @Argument(help: "The notice's id.", transform: { try parseID($0, "a notice") })
            var notice: UUID

            @OptionGroup var options: DatabaseOptions

            func run() async throws {
                let id = self.notice
                try await operate(self.options) { operators in
                    try await operators.removeNotice(id: id) ? "Removed notice \(shown(id))." : "No notice \(shown(id))."
                }
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "List the notices, newest first: id, kind, time, title.")

            @OptionGroup var options: DatabaseOptions

            func run() async throws {
                try await operate(self.options) { operators in
                    let notices = try await operators.allNotices()
                    guard !notices.isEmpty else { return "No notices." }
                    return notices.map { "\(shown($0.id))\t\($0.kind.rawValue)\t\(shown($0.createdAt))\t\($0.title)" }.joined(separator: "\n")
                }
            }
        }
    }

    struct ClientVersion: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "client-version", abstract: "Set the newest and the oldest supported client of a platform.",
            subcommands: [Set.self])

        struct Set: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Clients below --minimum must update; below --latest they are offered one.")

            @Argument(help: "ios, android or web.")
            var platform: ClientPlatform
            @Option(help: "The newest version, MAJOR.MINOR.PATCH.")
            var latest: String
            @Option(help: "The oldest version still served, MAJOR.MINOR.PATCH, not above --latest.")
            var minimum: String

            @OptionGroup var options: DatabaseOptions

            func validate() throws {
                guard let latest = SemanticVersion(self.latest) else { throw ValidationError("--latest must be MAJOR.MINOR.PATCH, such as 1.4.0") }
                guard let minimum = SemanticVersion(self.minimum) else { throw ValidationError("--minimum must be MAJOR.MINOR.PATCH, such as 1.2.0") }
                guard minimum <= latest else { throw ValidationError("--minimum may not be above --latest") }
            }

            func run() async throws {
                guard let latest = SemanticVersion(self.latest), let minimum = SemanticVersion(self.minimum) else { return }
                let platform = self.platform
                try await operate(self.options) { operators in
                    try await operators.setClientVersions(ClientVersionPolicy(latest: latest, minimum: minimum), for: platform)
                    return "\(platform.rawValue): latest \(latest), minimum \(minimum)."
                }
            }
        }
    }

    struct Maintenance: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Switch maintenance on or off: while on, every /v1 write answers 503 maintenance; reads keep working.",
            subcommands: [On.self, Off.self])

        struct On: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Refuse writes until a time (replacing a running maintenance's end).")

            @Option(help: "When it ends, RFC 3339 (such as 2026-12-01T03:00:00Z).", transform: parseTime)
            var until: Date

            @OptionGroup var options: DatabaseOptions

            func validate() throws {
                guard self.until > Date() else { throw ValidationError("--until must be in the future") }
            }

            func run() async throws {
                let until = self.until
                try await operate(self.options) { operators in
                    try await operators.setMaintenance(until: until)
                    return "Maintenance on until \(shown(until))."
                }
            }
        }

        struct Off: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Serve writes again now.")

            @OptionGroup var options: DatabaseOptions

            func run() async throws {
                try await operate(self.options) { operators in
                    try await operators.setMaintenance(until: nil)
                    return "Maintenance off."
                }
            }
        }
    }

    struct Words: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "The words no nickname or tag may contain (compared after NFKC, case folding, without spaces, punctuation and invisible characters).",
            discussion: "A small default list for Korean and English comes with the schema; extend it or empty it. Card text is not filtered.",
            subcommands: [Add.self, Remove.self, List.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Refuse a word.")

            @Argument(help: "The word (1-50 characters).")
            var word: String

            @OptionGroup var options: DatabaseOptions

            func validate() throws {
                let word = self.word.trimmingCharacters(in: .whitespacesAndNewlines)
                guard (1...50).contains(word.count) else { throw ValidationError("a word has 1 to 50 characters") }
                guard !RefusedWords.key(for: word).isEmpty else { throw ValidationError("a word needs a letter or a digit") }
            }

            func run() async throws {
                let word = self.word.trimmingCharacters(in: .whitespacesAndNewlines)
                try await operate(self.options) { operators in
                    try await operators.addRefusedWord(word) ? "Refused: \(word)" : "Already refused: \(word)"
                }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Allow a word again (every listed spelling that folds the same way).")

            @Argument(help: "The word.")
            var word: String

            @OptionGroup var options: DatabaseOptions

            func run() async throws {
                let word = self.word.trimmingCharacters(in: .whitespacesAndNewlines)
                try await operate(self.options) { operators in
                    let removed = try await operators.removeRefusedWord(word)
                    return removed.isEmpty ? "No refused word \(word)." : "Allowed again: \(removed.joined(separator: ", "))"
                }
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the refused words, one a line, oldest first.")

            @OptionGroup var options: DatabaseOptions

            func run() async throws {
                try await operate(self.options) { operators in
                    let words = try await operators.refusedWords()
                    return words.isEmpty ? "No refused words." : words.joined(separator: "\n")
                }
            }
        }
    }
}
