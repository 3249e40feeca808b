import Foundation
import Hummingbird
import SoomDomain

/// The public tag reads: the top ten, prefix search, and one tag. A session is optional; with
/// one, `isFavorite` is the caller's.
struct TagReactor: Reactor {
    enum Action: Sendable {
        case ranked
        case search(q: String, limit: Int?)
        /// `name` as it came in the path (percent-decoded).
        case show(name: String)
    }

    enum Mutation: Sendable {
        case listed([TagUsage])
        case loaded(TagDetail)
    }

    enum State: Sendable, Equatable {
        case list([TagUsage])
        case tag(TagDetail)
    }

    /// The signed-in caller, if the request carried a session.
    let caller: Authenticate.Caller?
    let tags: TagEnvironment

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .ranked:
            return [.listed(try await RankTags(self.tags)())]
        case .search(let q, let limit):
            return [.listed(try await SearchTags(self.tags)(try TagSearch(q: q, limit: limit)))]
        case .show(let name):
            return [.loaded(try await ShowTag(self.tags)(name, viewer: self.caller?.account.id))]
        }
    }

    /// Listed tags join the list.
    static func reduce(state: State?, mutation: Mutation) -> State? {
        switch (state, mutation) {
        case (.list(let shown), .listed(let items)): .list(shown + items)
        case (_, .listed(let items)): .list(items)
        case (_, .loaded(let detail)): .tag(detail)
        }
    }
}

extension TagReactor.State: ResponseState {
    func response() -> Response {
        switch self {
        case .list(let items): JSON.response(.ok, writing: TagListBody(items: items.map(TagUsageBody.init)), capacity: 64 + items.count * 48)
        case .tag(let detail): JSON.response(.ok, writing: TagDetailBody(detail), capacity: 128)
        }
    }
}
