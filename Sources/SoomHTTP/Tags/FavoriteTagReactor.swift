import Foundation
import Hummingbird
import SoomDomain

/// The signed-in caller's favourite tags: add, remove (both idempotent), list.
struct FavoriteTagReactor: Reactor {
    enum Action: Sendable {
        /// `name` as it came in the path (percent-decoded).
        case set(name: String, favorite: Bool)
        case list
    }

    enum Mutation: Sendable {
        case favoriteChanged(Bool)
        case listed([TagUsage])
    }

    enum State: Sendable, Equatable {
        case pending
        case favorite(Bool)
        case list([TagUsage])
    }

    let caller: Authenticate.Caller
    let tags: TagEnvironment
    var initialState: State { .pending }

    func mutate(action: Action) async throws -> [Mutation] {
        let account = self.caller.account.id
        switch action {
        case .set(let name, let favorite):
            return [.favoriteChanged(try await FavoriteTag(self.tags)(favorite, name: name, account: account))]
        case .list:
            return [.listed(try await ListFavoriteTags(self.tags)(of: account))]
        }
    }

    static func reduce(state: State, mutation: Mutation) -> State {
        switch mutation {
        case .favoriteChanged(let favorite): .favorite(favorite)
        case .listed(let items): .list(items)
        }
    }
}

extension FavoriteTagReactor.State: ResponseState {
    func response() throws -> Response {
        switch self {
        case .pending: throw IncompleteReactorState(state: "\(self)")
        case .favorite(let favorite): try JSON.response(.ok, FavoriteBody(favorite: favorite))
        case .list(let items): JSON.response(.ok, writing: TagListBody(items: items.map(TagUsageBody.init)), capacity: 64 + items.count * 48)
        }
    }
}
