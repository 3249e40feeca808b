/// When reports hide a card and how long its author is then kept from posting.
///
/// The contract's defaults: four distinct reporters hide a card; the author's first restriction
/// lasts 1 day, later ones 7, 14 and then 30 days each; a report counts toward hiding only when the
/// reporter's account was at least a day old when it reported (so a handful of throwaway
/// accounts cannot hide a card).
public struct ModerationPolicy: Sendable, Equatable {
    /// Distinct reporters that hide a card (at least 1).
    public let reportThreshold: Int
    /// Restriction lengths in days, the first restriction first; later ones use the last.
    public let restrictionDays: [Int]
    /// Seconds an account must have existed when it reports for the report to count toward hiding.
    public let reporterMinimumAge: Int

    /// One day.
    public static let defaultReporterMinimumAge = 86_400

    public static let `default` = ModerationPolicy(
        uncheckedThreshold: 4, restrictionDays: [1, 7, 14, 30], reporterMinimumAge: Self.defaultReporterMinimumAge)

    /// - Throws: `ModerationPolicy.Invalid` when the threshold is below 1, the list of days is
    ///   empty or holds a length outside 1…3650, or the reporter age is outside 0…1 year.
    public init(reportThreshold: Int, restrictionDays: [Int], reporterMinimumAge: Int = Self.defaultReporterMinimumAge) throws {
        guard reportThreshold >= 1 else { throw Invalid(message: "the report threshold must be at least 1") }
        guard !restrictionDays.isEmpty, restrictionDays.allSatisfy({ (1...3650).contains($0) }) else {
            throw Invalid(message: "restriction lengths must be one or more whole days between 1 and 3650")
        }
        guard (0...31_536_000).contains(reporterMinimumAge) else { throw Invalid(message: "the reporter minimum age must be 0-31536000 seconds") }
        self.init(uncheckedThreshold: reportThreshold, restrictionDays: restrictionDays, reporterMinimumAge: reporterMinimumAge)
    }

    private init(uncheckedThreshold: Int, restrictionDays: [Int], reporterMinimumAge: Int) {
        self.reportThreshold = uncheckedThreshold
        self.restrictionDays = restrictionDays
        self.reporterMinimumAge = reporterMinimumAge
    }

    /// The length of the restriction after `previous` earlier ones.
    public func restrictionDays(after previous: Int) -> Int {
        self.restrictionDays[min(max(previous, 0), self.restrictionDays.count - 1)]
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let message: String
        public var description: String { self.message }
    }
}
