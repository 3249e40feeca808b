import Foundation

/// Deletes the caller's own card, or a comment card answering the caller's card (`403 not_owner`
/// for anything else). Its comment cards stay.
public struct DeleteCard: Sendable {
    let environment: CardEnvironment

    public init(_ environment: CardEnvironment) {
        self.environment = environment
    }

    public func callAsFunction(_ id: UUID, by accountID: UUID) async throws {
        switch try await self.environment.cards.delete(cardID: id, by: accountID) {
        case .deleted: break
        case .notFound: throw SoomError.cardNotFound
        case .notOwner:
            throw SoomError(.forbidden, code: "not_owner", message: "Only the author of this card, or of the card it answers, can delete it.")
        }
    }
}
