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

    enum Mutation: Sendable {
        case posted(PostedCard)
        case loaded(Card)
        case deleted
        case likeChanged(LikeState)
        /// The report was recorded (`hid`: it was the one that hid the card).
        case reported(hid: Bool)
    }

    enum State: Sendable, Equatable {
        case pending
        /// `201` with `Location`, also when an `Idempotency-Key` replays the first card.
        case posted(Card)
        case card(Card)
        case deleted
        case like(LikeState)
        /// `202`: the report is taken; whether it hid the card is not the reporter's business.
        case reportAccepted
    }

    let caller: Authenticate.Caller
    let cards: CardEnvironment
    var initialState: State { .pending }

    func mutate(action: Action) async throws -> [Mutation] {
        let viewer = self.caller.account.id
        switch action {
        case .post(let draft, let parentID, let key):
            return [.posted(try await PostCard(self.cards)(by: self.caller.account, parentID: parentID, draft: draft, idempotencyKey: key))]
        case .show(let id):
            return [.loaded(try await ShowCard(self.cards)(id, viewer: viewer))]
        case .delete(let id):
            try await DeleteCard(self.cards)(id, by: viewer)
            return [.deleted]
        case .like(let id, let liked):
            return [.likeChanged(try await LikeCard(self.cards)(liked, cardID: id, by: viewer))]
        case .report(let id, let reason):
            return [.reported(hid: try await ReportCard(self.cards)(id, reason: reason, by: viewer))]
        }
    }

    static func count(_ mutation: Mutation) {
        switch mutation {
        case .posted(let posted) where !posted.replayed:
            (posted.card.parentID == nil ? BusinessMetrics.cardsPosted : BusinessMetrics.commentCardsPosted).increment()
        case .likeChanged(let like) where like.liked:
            BusinessMetrics.likes.increment()
        case .reported(let hid):
            BusinessMetrics.reports.increment()
            if hid { BusinessMetrics.cardsHidden.increment() }
        case .posted, .loaded, .deleted, .likeChanged:
            break
        }
    }

    static func reduce(state: State, mutation: Mutation) -> State {
        switch mutation {
        case .posted(let posted): .posted(posted.card)
        case .loaded(let card): .card(card)
        case .deleted: .deleted
        case .likeChanged(let like): .like(like)
        case .reported: .reportAccepted
        }
    }
}

extension CardReactor.State: ResponseState {
    func response() throws -> Response {
        switch self {
        case .pending:
            throw IncompleteReactorState(state: "\(self)")
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
        }
    }
}
