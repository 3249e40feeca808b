import Hummingbird
import SoomDomain

/// Every list of cards: latest, popular, nearby, an account's cards, a card's comment cards.
struct FeedReactor: Reactor {
    enum Action: Sendable {
        case read(Feed, PageRequest)
    }

    enum Mutation: Sendable {
        /// `shared`: the kept cards or chunk entries the page was completed from, whose encoded cards can be reused.
        case pageLoaded(cards: [Card], nextCursor: String?, shared: SharedMemos? = nil)
    }

    /// A page of cards; `shared`: the memos the page's cards can be written from.
    struct State: Sendable, Equatable {
        var cards: [Card]
        var nextCursor: String?
        var shared: SharedMemos? = nil
    }

    let caller: Authenticate.Caller
    let cards: CardEnvironment

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .read(let feed, let page):
            let result = try await ReadFeed(self.cards)(feed, page: page, viewer: self.caller.account.id)
            return [.pageLoaded(cards: result.cards, nextCursor: result.nextCursor, shared: result.shared)]
        }
    }

    /// A loaded page is appended, and its cursor continues the list. The memos describe one
    /// page's cards: they are kept only while the state holds no other cards.
    static func reduce(state: State?, mutation: Mutation) -> State? {
        switch mutation {
        case .pageLoaded(let cards, let nextCursor, let shared):
            // The first page (every request's only one) is taken as it is, not copied.
            guard let state, !state.cards.isEmpty else { return State(cards: cards, nextCursor: nextCursor, shared: shared) }
            return State(cards: state.cards + cards, nextCursor: nextCursor, shared: nil)
        }
    }
}

extension FeedReactor.State: ResponseState {
    func response() -> Response {
        let body = CardListBody(cards: self.cards, nextCursor: self.nextCursor, shared: self.shared)
        return JSON.response(.ok, writing: body, capacity: body.capacity)
    }
}
