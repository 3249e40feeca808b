import Foundation

/// A card's poll as a viewer sees it (the contract's `Poll`).
///
/// `voteCount` counts the ballots that chose the option and `voterCount` the ballots, so a
/// multiple-choice poll's percentages may add up to more than 100. Counts are exact: a ballot and
/// the counters move in one transaction (`CardRepository.vote`).
public struct Poll: Sendable, Equatable {
    public struct Option: Sendable, Equatable {
        public let text: String
        public let voteCount: Int

        public init(text: String, voteCount: Int) {
            self.text = text
            self.voteCount = voteCount
        }
    }

    public let options: [Option]
    public let multiple: Bool
    public let voterCount: Int
    /// The viewer's ballot; empty when they have none (and for everyone on a shared page).
    public internal(set) var myVotes: Ballot
    /// Nil: it never closes (a story's poll closes with the story, at its `expiresAt`).
    public let closesAt: Date?
    public let closed: Bool

    public init(options: [Option], multiple: Bool, voterCount: Int, myVotes: Ballot, closesAt: Date?, closed: Bool) {
        self.options = options
        self.multiple = multiple
        self.voterCount = voterCount
        self.myVotes = myVotes
        self.closesAt = closesAt
        self.closed = closed
    }

    /// The poll with `ballot` as the viewer's own.
    public func seen(with ballot: Ballot) -> Poll {
        var poll = self
        poll.myVotes = ballot
        return poll
    }
}

/// The options one account chose on one poll, as a set of indexes (bit `i` is option `i`), so that
/// it is stored, compared and counted as one small number. `none` is no ballot.
public struct Ballot: Sendable, Hashable {
    /// The chosen options as bits.
    public let bits: Int

    public init(bits: Int) {
        self.bits = bits
    }

    public static let none = Ballot(bits: 0)

    /// The chosen indexes, ascending.
    public var indexes: [Int] { (0..<Poll.maximumOptions).filter { self.bits & (1 << $0) != 0 } }

    /// A ballot from a request's indexes: at least one, no duplicates, each one an option a poll may
    /// have. Whether the poll has that many options, and whether it takes more than one, is checked
    /// with the poll (`CardRepository.vote`).
    /// - Throws: `422 validation_failed` on `options`.
    public init(choosing indexes: [Int]) throws(SoomError) {
        guard !indexes.isEmpty else { throw .validationFailed(field: "options", "Choose at least one option.") }
        var bits = 0
        for index in indexes {
            guard (0..<Poll.maximumOptions).contains(index) else {
                throw .validationFailed(field: "options", "There is no option \(index) on this poll.")
            }
            guard bits & (1 << index) == 0 else { throw .validationFailed(field: "options", "Option \(index) is chosen twice.") }
            bits |= 1 << index
        }
        self.bits = bits
    }
}

extension Poll {
    /// A poll has 2…4 options of 1…30 characters.
    public static let optionCounts = 2...4
    public static var maximumOptions: Int { Self.optionCounts.upperBound }
    public static let optionLength = 1...30
    /// `closesAt` may be this far ahead, at the least and at the most.
    public static let closingDelay: ClosedRange<TimeInterval> = (5 * 60)...(7 * 24 * 60 * 60)
}

/// A poll as a client asks to post it, with its card: `{"options": [string],"multiple"?: bool,"closesAt"?: time}`.
public struct PollDraft: Sendable, Equatable {
    /// Trimmed, in the client's order.
    public let options: [String]
    public let multiple: Bool
    public let closesAt: Date?

    /// Checks the options: 2–4, each 1–30 characters once trimmed, distinct ignoring case.
    /// - Throws: `422 validation_failed` on `poll`.
    public init(options: [String], multiple: Bool?, closesAt: Date?) throws(SoomError) {
        guard Poll.optionCounts.contains(options.count) else {
            throw .validationFailed(field: "poll", "A poll has 2 to 4 options.")
        }
        let trimmed = options.map { $0.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping }
        guard trimmed.allSatisfy({ Poll.optionLength.contains($0.count) }) else {
            throw .validationFailed(field: "poll", "Each option has 1 to 30 characters.")
        }
        guard Set(trimmed.map { $0.lowercased() }).count == trimmed.count else {
            throw .validationFailed(field: "poll", "Options must differ (ignoring case).")
        }
        self.options = trimmed
        self.multiple = multiple ?? false
        self.closesAt = closesAt
    }

    /// When the poll of a card posted at `postedAt` (a story ending at `storyEnd`) closes: its
    /// `closesAt`, 5 minutes to 7 days ahead, and a story's poll with the story at the latest.
    /// - Throws: `422 validation_failed` on `poll` when `closesAt` is too soon or too far.
    public func closing(postedAt: Date, storyEnd: Date?) throws(SoomError) -> Date? {
        if let closesAt = self.closesAt, !Poll.closingDelay.contains(closesAt.timeIntervalSince(postedAt)) {
            throw .validationFailed(field: "poll", "closesAt must be 5 minutes to 7 days ahead.")
        }
        switch (self.closesAt, storyEnd) {
        case (let closesAt?, let end?): return min(closesAt, end)
        case (let closesAt, let end): return closesAt ?? end
        }
    }

    /// A canonical text of the poll for `CardDraft.canonicalForm`.
    var canonicalForm: String {
        [self.multiple ? "multiple" : "single", self.closesAt.map { String($0.timeIntervalSince1970) } ?? "-"]
            .joined(separator: ",") + ":" + self.options.joined(separator: "\u{1E}")
    }
}
