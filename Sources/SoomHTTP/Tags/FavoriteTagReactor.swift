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
        /// The tag's favourite flag afterwards.
        case favoriteSet(Bool)
        case listed([TagUsage])
    }

    enum State: Sendable, Equatable {
        case favorite(Bool)
        case list([TagUsage])
    }

    let caller: Authenticate.Caller
    let tags: TagEnvironment

    func mutate(action: Action) async throws -> [Mutation] {
        let account = self.caller.account.id
        switch action {
        case .set(let name, let favorite):
            return [.favoriteSet(try await FavoriteTag(self.tags)(favorite, name: name, account: account))]
        case .list:
            return [.listed(try await ListFavoriteTags(self.tags)(of: account))]
        }
    }

    /// Listed tags join the list.
    static func reduce(state: State?, mutation: Mutation) -> State? {
        switch (state, mutation) {
        case (_, .favoriteSet(let favorite)): .favorite(favorite)
        case (.list(let shown), .listed(let items)): .list(shown + items)
        case (_, .listed(let items)): .list(items)
        }
    }
}

extension FavoriteTagReactor.State: ResponseState {
    func response() -> Response {
        switch self {
        case .favorite(let favorite): JSON.response(.ok, writing: FavoriteBody(favorite: favorite), capacity: 64)
        case .list(let items): JSON.response(.ok, writing: TagListBody(items: items.map(TagUsageBody.init)), capacity: 64 + items.count * 48)
        }
    }
}
