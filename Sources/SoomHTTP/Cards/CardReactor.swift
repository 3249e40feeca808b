import Foundation
import Hummingbird
import SoomDomain

/// A card's routes: post a card or comment card, read one, delete one, like and unlike, vote, report.
struct CardReactor: Reactor {
    enum Action: Sendable {
        case post(CardDraft, parentID: UUID?, idempotencyKey: String?)
        case show(UUID)
        case delete(UUID)
        case like(UUID, Bool)
        /// Cast or change the caller's ballot; `.none` withdraws it.
        case vote(UUID, Ballot)
        case report(UUID, ReportReason)
    }

    enum Mutation: Sendable, Equatable {
        /// A new card (or comment card) was stored.
        case stored(Card)
        /// An `Idempotency-Key` replayed the first card: nothing was stored or counted again.
        case replayed(Card)
        case loaded(Card)
        case deleted(UUID)
        case likeSet(LikeState)
        /// The caller's ballot was cast, changed or withdrawn; the poll as it is now.
        case voted(Poll)
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
        case poll(Poll)
        /// `202`: the report is taken; whether it hid the card is not the reporter's business.
        case reportAccepted
    }

    let caller: Authenticate.Caller
    let cards: CardEnvironment

    func mutate(action: Action) async throws -> [Mutation] {
        let viewer = self.caller.account.id
        switch action {
        case .post(let draft, let parentID, let key):
            switch try await PostCard(self.cards)(by: self.caller.account, parentID: parentID, draft: draft, idempotencyKey: key) {
            case .stored(let card): return [.stored(card)]
            case .replayed(let card): return [.replayed(card)]
            }
        case .show(let id):
            return [.loaded(try await ShowCard(self.cards)(id, viewer: viewer))]
        case .delete(let id):
            try await DeleteCard(self.cards)(id, by: viewer)
            return [.deleted(id)]
        case .like(let id, let liked):
            return [.likeSet(try await LikeCard(self.cards)(liked, cardID: id, by: viewer))]
        case .vote(let id, let ballot):
            return [.voted(try await VoteInPoll(self.cards)(ballot, cardID: id, by: viewer))]
        case .report(let id, let reason):
            return try await ReportCard(self.cards)(id, reason: reason, by: viewer) ? [.reported(id), .hidden(id)] : [.reported(id)]
        }
    }

    static func reduce(state: State?, mutation: Mutation) -> State? {
        switch mutation {
        case .stored(let card), .replayed(let card): .posted(card)
        case .loaded(let card): .card(card)
        case .deleted: .deleted
        case .likeSet(let like): .like(like)
        case .voted(let poll): .poll(poll)
        case .reported: .reportAccepted
        // A report's outcome is not the reporter's business: the answer stays the report's.
        case .hidden: state
        }
    }

    static func counter(for mutation: Mutation) -> BusinessMetrics? {
        switch mutation {
        case .stored(let card): card.parentID == nil ? .cardPosted : .commentCardPosted
        case .likeSet(let like) where like.liked: .like
        case .reported: .report
        case .hidden: .cardHidden
        case .voted(let poll) where poll.myVotes != .none: .ballot
        case .replayed, .loaded, .deleted, .likeSet, .voted: nil
        }
    }
}

extension CardReactor.State: ResponseState {
    func response() -> Response {
        switch self {
        case .posted(let card):
            return JSON.response(.created, writing: CardBody(card: card), headers: [.location: "/v1/cards/\(card.id.uuidString.lowercased())"])
        case .card(let card):
            return JSON.response(.ok, writing: CardBody(card: card))
        case .deleted:
            return Response(status: .noContent)
        case .like(let like):
            return JSON.response(.ok, writing: LikeBody(like: like), capacity: 64)
        case .poll(let poll):
            return JSON.response(.ok, writing: PollBody(poll: poll), capacity: 512)
        case .reportAccepted:
            return Response(status: .accepted)
        }
    }
}
