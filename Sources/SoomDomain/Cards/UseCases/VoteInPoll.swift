import Foundation

/// Casts, changes or withdraws the caller's ballot on a card's poll (`PUT` / `DELETE
/// /v1/cards/{id}/poll/vote`): `404` without a live card the caller may see or without a poll,
/// `409 poll_closed` once it closed, `422` on `options` for an option the poll does not have or
/// more than one on a single-choice poll, and for the poll's author.
public struct VoteInPoll: Sendable {
    let environment: CardEnvironment

    public init(_ environment: CardEnvironment) {
        self.environment = environment
    }

    /// `.none` withdraws the ballot (idempotent).
    public func callAsFunction(_ ballot: Ballot, cardID: UUID, by voter: UUID) async throws -> Poll {
        switch try await self.environment.cards.vote(ballot, cardID: cardID, by: voter) {
        case .voted(let poll): return poll
        case .notFound: throw SoomError(.notFound, code: "not_found", message: "There is no such card, or it has no poll.")
        case .author: throw SoomError.validationFailed(field: "id", "You cannot vote on your own poll.")
        case .closed: throw SoomError(.conflict, code: "poll_closed", message: "This poll has closed.")
        case .invalid: throw SoomError.validationFailed(field: "options", "Choose options this poll has: exactly one unless it takes several.")
        }
    }
}
