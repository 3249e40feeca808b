import Hummingbird
import SoomDomain

/// Every list of cards: latest, popular, nearby, an account's cards, a card's comment cards.
struct FeedReactor: Reactor {
    enum Action: Sendable {
        case read(Feed, PageRequest)
    }

    enum Mutation: Sendable {
        case pageLoaded(cards: [Card], nextCursor: String?)
    }

    enum State: Sendable, Equatable {
        case pending
        case page(cards: [Card], nextCursor: String?)
    }

    let caller: Authenticate.Caller
    let cards: CardEnvironment
    var initialState: State { .pending }

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .read(let feed, let page):
            let result = try await ReadFeed(self.cards)(feed, page: page, viewer: self.caller.account.id)
            return [.pageLoaded(cards: result.cards, nextCursor: result.nextCursor)]
        }
    }

    static func reduce(state: State, mutation: Mutation) -> State {
        switch mutation {
        case .pageLoaded(let cards, let nextCursor): .page(cards: cards, nextCursor: nextCursor)
        }
    }
}

extension FeedReactor.State: ResponseState {
    func response() throws -> Response {
        switch self {
        case .pending: throw IncompleteReactorState(state: "\(self)")
        case .page(let cards, let nextCursor):
            let body = CardListBody(cards: cards, nextCursor: nextCursor)
            return JSON.response(.ok, writing: body, capacity: body.capacity)
        }
    }
}
