import Hummingbird
import SoomDomain

/// Every list of cards: latest, popular, nearby, an account's cards, a card's comment cards.
struct FeedReactor: Reactor {
    enum Action: Sendable {
        case read(Feed, PageRequest)
    }

    enum Mutation: Sendable {
        /// `shared`: the kept page or chunks the cards were completed from, whose encoded cards can be reused.
        case pageLoaded(cards: [Card], nextCursor: String?, shared: SharedMemos? = nil)
    }

    enum State: Sendable, Equatable {
        case pending
        case page(cards: [Card], nextCursor: String?, shared: SharedMemos? = nil)
    }

    let caller: Authenticate.Caller
    let cards: CardEnvironment
    var initialState: State { .pending }

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .read(let feed, let page):
            let result = try await ReadFeed(self.cards)(feed, page: page, viewer: self.caller.account.id)
            return [.pageLoaded(cards: result.cards, nextCursor: result.nextCursor, shared: result.shared)]
        }
    }

    static func reduce(state: State, mutation: Mutation) -> State {
        switch mutation {
        case .pageLoaded(let cards, let nextCursor, let shared): .page(cards: cards, nextCursor: nextCursor, shared: shared)
        }
    }
}

extension FeedReactor.State: ResponseState {
    func response() throws -> Response {
        switch self {
        case .pending: throw IncompleteReactorState(state: "\(self)")
        case .page(let cards, let nextCursor, let shared):
            let body = CardListBody(cards: cards, nextCursor: nextCursor, shared: shared)
            return JSON.response(.ok, writing: body, capacity: body.capacity)
        }
    }
}
