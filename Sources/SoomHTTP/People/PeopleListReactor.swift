import Foundation
import Hummingbird
import SoomDomain

/// The lists of people: an account's followers and followings (as `Profile`s), and the caller's
/// blocks (as `UserSummary`s).
struct PeopleListReactor: Reactor {
    enum Action: Sendable {
        case people(PeopleList, PageRequest)
        case blocks(PageRequest)
    }

    enum Mutation: Sendable {
        case profilesLoaded([Profile], nextCursor: String?)
        case blocksLoaded([UserSummary], nextCursor: String?)
    }

    enum State: Sendable, Equatable {
        case profiles([Profile], nextCursor: String?)
        case blocks([UserSummary], nextCursor: String?)
    }

    let caller: Authenticate.Caller
    let people: PeopleEnvironment

    func mutate(action: Action) async throws -> [Mutation] {
        let viewer = self.caller.account.id
        switch action {
        case .people(let list, let page):
            let result = try await ListPeople(self.people)(list, page: page, viewer: viewer)
            return [.profilesLoaded(result.items, nextCursor: result.nextCursor)]
        case .blocks(let page):
            let result = try await ListBlocks(self.people)(page: page, viewer: viewer)
            return [.blocksLoaded(result.items, nextCursor: result.nextCursor)]
        }
    }

    /// A loaded page is appended to the list of its kind, and its cursor continues it; a page of
    /// the other kind starts a new list.
    static func reduce(state: State?, mutation: Mutation) -> State? {
        switch (state, mutation) {
        case (.profiles(let shown, _), .profilesLoaded(let items, let next)): .profiles(shown + items, nextCursor: next)
        case (.blocks(let shown, _), .blocksLoaded(let items, let next)): .blocks(shown + items, nextCursor: next)
        case (_, .profilesLoaded(let items, let next)): .profiles(items, nextCursor: next)
        case (_, .blocksLoaded(let items, let next)): .blocks(items, nextCursor: next)
        }
    }
}

extension PeopleListReactor.State: ResponseState {
    func response() -> Response {
        switch self {
        case .profiles(let items, let next):
            let body = ListBody(items: items.map(ProfileBody.init), nextCursor: next)
            return JSON.response(.ok, writing: body, capacity: body.capacity)
        case .blocks(let items, let next):
            let body = ListBody(items: items.map(UserSummaryBody.init), nextCursor: next)
            return JSON.response(.ok, writing: body, capacity: body.capacity)
        }
    }
}
