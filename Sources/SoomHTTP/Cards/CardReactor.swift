import Foundation
import Hummingbird
import SoomDomain

/// A card's routes: post a card or comment card, read one, delete one, like and unlike, report.
struct CardReactor: Reactor {
    enum Action: Sendable {
        case post(CardDraft, parentID: UUID?, idempotencyKey: String?)
        case show(UUID)
        case delete(UUID)
        case like(UUID, Bool)
        case report(UUID, ReportReason)
    }

    enum Mutation: Sendable, Equatable {
        /// A new card (or comment card) was stored.
        case stored(Card)
        /// An `Idempotency-Key` replayed the first card: nothing was stored or counted again.
        case replayed(Card)
        /// Storing the card raised these tags' usage counts.
        case tagsCounted([String])
        /// Storing the comment card raised its parent's comment count.
        case commentCounted(parentID: UUID)
        case loaded(Card)
        case deleted(UUID)
        case likeSet(LikeState)
        /// The report was recorded.
        case reported(UUID)
        /// This report was the one that hid the card; its author is restricted and told so.
        case hidden(UUID)
    }

    enum State: Sendable, Equatable {
        /// `201` with `Location`, also when an `Idempotency-Key` replays the first card.
        case posted(Card)
        case card(Card)
        /// `204`: the card is gone.
        case deleted
        case like(LikeState)
        /// `202`: the report is taken; whether it hid the card is not the reporter's business.
        case reportAccepted
        /// The answer with nothing to show: `404` for a card not found or not liked, `500` for a
        /// post that stored nothing (`PostCard` returns a card or throws, so only a fault leaves it).
        case error(APIError)
    }

    let caller: Authenticate.Caller
    let cards: CardEnvironment

    func initialState(for action: Action) -> State {
        switch action {
        case .post: .error(.internalError)
        case .show, .like: .error(SoomError.cardNotFound.apiError)
        case .delete: .deleted
        case .report: .reportAccepted
        }
    }

    func mutate(action: Action) async throws -> [Mutation] {
        let viewer = self.caller.account.id
        switch action {
        case .post(let draft, let parentID, let key):
            return Self.mutations(of: try await PostCard(self.cards)(by: self.caller.account, parentID: parentID, draft: draft, idempotencyKey: key))
        case .show(let id):
            return [.loaded(try await ShowCard(self.cards)(id, viewer: viewer))]
        case .delete(let id):
            try await DeleteCard(self.cards)(id, by: viewer)
            return [.deleted(id)]
        case .like(let id, let liked):
            return [.likeSet(try await LikeCard(self.cards)(liked, cardID: id, by: viewer))]
        case .report(let id, let reason):
            return try await ReportCard(self.cards)(id, reason: reason, by: viewer) ? [.reported(id), .hidden(id)] : [.reported(id)]
        }
    }

    /// What posting did: the card stored, then its tags and its parent counted; or a replay, which did nothing again.
    static func mutations(of posted: PostedCard) -> [Mutation] {
        guard !posted.replayed else { return [.replayed(posted.card)] }
        var mutations: [Mutation] = [.stored(posted.card)]
        if !posted.countedTags.isEmpty { mutations.append(.tagsCounted(posted.countedTags)) }
        if let parentID = posted.countedOnParent { mutations.append(.commentCounted(parentID: parentID)) }
        return mutations
    }

    static func reduce(state: State, mutation: Mutation) -> State {
        switch mutation {
        case .stored(let card), .replayed(let card): .posted(card)
        case .loaded(let card): .card(card)
        case .deleted: .deleted
        case .likeSet(let like): .like(like)
        case .reported: .reportAccepted
        // The answer shows neither: the card answered is the same, and a report's outcome is not the reporter's business.
        case .tagsCounted, .commentCounted, .hidden: state
        }
    }

    static func counter(for mutation: Mutation) -> BusinessMetrics? {
        switch mutation {
        case .stored(let card): card.parentID == nil ? .cardPosted : .commentCardPosted
        case .likeSet(let like) where like.liked: .like
        case .reported: .report
        case .hidden: .cardHidden
        case .replayed, .tagsCounted, .commentCounted, .loaded, .deleted, .likeSet: nil
        }
    }
}

extension CardReactor.State: ResponseState {
    func response() throws -> Response {
        switch self {
        case .posted(let card):
            return JSON.response(.created, writing: CardBody(card: card), headers: [.location: "/v1/cards/\(card.id.uuidString.lowercased())"])
        case .card(let card):
            return JSON.response(.ok, writing: CardBody(card: card))
        case .deleted:
            return Response(status: .noContent)
        case .like(let like):
            return try JSON.response(.ok, LikeBody(liked: like.liked, likeCount: like.likeCount))
        case .reportAccepted:
            return Response(status: .accepted)
        case .error(let error):
            return try error.response()
        }
    }
}
