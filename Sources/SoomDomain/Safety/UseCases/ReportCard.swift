import Foundation

/// Reports someone else's card, once per account (`POST /v1/cards/{id}/reports`).
///
/// The report that brings a card to the policy's threshold of distinct reporters hides it and
/// restricts its author, exactly once however many reports arrive at the same moment (the
/// repository serialises them).
public struct ReportCard: Sendable {
    let environment: CardEnvironment

    public init(_ environment: CardEnvironment) {
        self.environment = environment
    }

    /// Whether this report hid the card.
    @discardableResult
    public func callAsFunction(_ cardID: UUID, reason: ReportReason, by reporterID: UUID) async throws -> Bool {
        let outcome = try await self.environment.cards.report(
            cardID: cardID, by: reporterID, reason: reason, at: self.environment.stamp, policy: self.environment.moderation)
        switch outcome {
        case .reported: return false
        case .hid: return true
        case .notFound: throw SoomError.cardNotFound
        case .ownCard: throw SoomError.validationFailed(field: "id", "You cannot report your own card.")
        case .alreadyReported: throw SoomError(.conflict, code: "already_reported", message: "You have already reported this card.")
        }
    }
}

/// What a report did.
public enum ReportOutcome: Sendable, Equatable {
    /// Recorded; the card is still below the threshold.
    case reported
    /// Recorded, and this report hid the card and restricted its author.
    case hid
    /// No such card, or not visible to the reporter (hidden, expired, blocked either way).
    case notFound
    case ownCard
    case alreadyReported
}
