import ArgumentParser
import Foundation
import SoomData
import SoomDomain

extension Soom.Admin {
    struct Cards: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "card",
            abstract: "Post operator cards (as the built-in operator account), pin them to the top of the latest feed, and unpin them.",
            subcommands: [Post.self, Unpin.self, Pinned.self])

        struct Post: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Post a card as the operator account; prints its id and nothing else.",
                discussion: """
                    With --pin-until, the card leads the first page of the latest feed until then (the newest three \
                    pinned cards at once), on every running instance within two seconds; it is an ordinary card otherwise.
                    """)

            @Option(help: "The card's text: 1-500 characters.")
            var content: String
            @Option(help: "A built-in background (GET /v1/images/defaults); default paper-cream.")
            var background: String = "paper-cream"
            @Option(help: "Pin it until then, RFC 3339 (such as 2026-12-01T03:00:00Z).", transform: parseTime)
            var pinUntil: Date?

            @OptionGroup var options: DatabaseOptions

            func validate() throws {
                _ = try self.draft()
                if let pinUntil, pinUntil <= Date() { throw ValidationError("--pin-until must be in the future") }
            }

            func draft() throws -> CardDraft {
                do {
                    return try CardDraft(
                        content: self.content, font: nil, background: .builtIn(self.background), tags: nil, story: nil, location: nil)
                } catch {
                    throw ValidationError("--\(error.field == "content" ? "content" : "background"): \(error.message)")
                }
            }

            func run() async throws {
                let (draft, pinUntil) = (try self.draft(), self.pinUntil)
                try await operate(self.options) { operators in
                    switch try await operators.postOperatorCard(draft, pinUntil: pinUntil) {
                    case .posted(let id): return id.uuidString.lowercased()
                    case .restricted(let until):
                        throw ValidationError(
                            "the operator account may not post \(until.map { "until \(shown($0))" } ?? "now") (its cards were hidden after reports; "
                                + "`soom admin unrestrict` lifts it)")
                    }
                }
            }
        }

        struct Unpin: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "End a card's pin now (the card stays, as an ordinary card).")

            @Argument(help: "The card's id.", transform: { try parseID($0, "a card") })
            var id: UUID

            @OptionGroup var options: DatabaseOptions

            func run() async throws {
                let id = self.id
                try await operate(self.options) { operators in
                    guard try await operators.unpin(cardID: id) else {
                        throw ValidationError("no pinned card has the id \(id.uuidString.lowercased())")
                    }
                    return "Unpinned \(id.uuidString.lowercased())."
                }
            }
        }

        struct Pinned: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "List the live pinned operator cards, newest first (the first three lead the feed).")

            @OptionGroup var options: DatabaseOptions

            func run() async throws {
                try await operate(self.options) { operators in
                    let pinned = try await operators.pinnedCards()
                    guard !pinned.isEmpty else { return "No card is pinned." }
                    return pinned.enumerated().map { index, card in
                        let line = card.content.split(separator: "\n").first.map(String.init) ?? ""
                        let shownNow = index < OperatorSwitches.Pinned.shown ? "" : "  (not shown: only the newest three are)"
                        return "\(card.id.uuidString.lowercased())  until \(shown(card.until))  \(line.prefix(40))\(shownNow)"
                    }.joined(separator: "\n")
                }
            }
        }
    }
}
