import Foundation

/// Posts a card, or a comment card when `parentID` is set (the parent must be live); a poll only
/// on a top-level card (`422` on `poll` otherwise, and for a `closesAt` out of range). An author
/// restricted after reports gets `423 account_restricted` with `restrictedUntil`.
/// With an `Idempotency-Key`, a retry of the same request returns the first card and creates nothing.
public struct PostCard: Sendable {
    let environment: CardEnvironment

    public init(_ environment: CardEnvironment) {
        self.environment = environment
    }

    public func callAsFunction(by author: Account, parentID: UUID?, draft: CardDraft, idempotencyKey: String?) async throws -> PostedCard {
        try self.environment.switches.refusedWords.require(draft.tags)
        let idempotency = try idempotencyKey.map { key throws(SoomError) in
            try IdempotencyRecord(key: key, request: draft.canonicalForm(parentID: parentID))
        }
        if draft.poll != nil, parentID != nil { throw SoomError.validationFailed(field: "poll", "A comment card cannot carry a poll.") }
        let createdAt = self.environment.stamp
        let pollClosesAt = try draft.poll?.closing(postedAt: createdAt, storyEnd: draft.expiry(postedAt: createdAt))
        let card = NewCard(id: UUID(), author: author.summary, parentID: parentID, draft: draft, createdAt: createdAt, pollClosesAt: pollClosesAt)
        switch try await self.environment.cards.create(card, idempotency: idempotency) {
        case .created(let card): return .stored(card)
        case .replayed(let card): return .replayed(card)
        case .idempotencyKeyReused:
            throw SoomError(
                .validation, code: "idempotency_key_reused", message: "This Idempotency-Key was used with a different request.",
                field: "Idempotency-Key")
        case .backgroundNotOwned:
            throw SoomError.validationFailed(field: "background", "No image with that id was uploaded by this account.")
        case .parentNotFound, .replayedCardGone:
            throw SoomError.cardNotFound
        case .authorNotFound:
            throw SoomError.unauthorized
        case .authorRestricted(let until):
            throw SoomError.accountRestricted(until: until)
        }
    }
}

/// A posted card: stored now, or the replay of an earlier request with the same key (which
/// stored and counted nothing again; see `CardRepository.create`).
public enum PostedCard: Sendable, Equatable {
    case stored(Card)
    case replayed(Card)

    public var card: Card {
        switch self {
        case .stored(let card), .replayed(let card): card
        }
    }
}

extension SoomError {
    /// `423 account_restricted` with `restrictedUntil`: posting is refused until then; reading still works.
    public static func accountRestricted(until: Date) -> SoomError {
        SoomError(
            .restricted, code: "account_restricted", message: "This account may not post cards or comment cards until the restriction ends.",
            details: ["restrictedUntil": .time(until)])
    }

    public static let cardNotFound = SoomError(.notFound, code: "not_found", message: "There is no such card.")
}
