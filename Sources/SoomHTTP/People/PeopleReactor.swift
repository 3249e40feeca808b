import Foundation
import Hummingbird
import SoomDomain

/// One account as the caller sees it, and the caller's follow and block of it.
struct PeopleReactor: Reactor {
    enum Action: Sendable {
        case show(UUID)
        case follow(UUID, Bool)
        case block(UUID, Bool)
    }

    enum Mutation: Sendable {
        case profileLoaded(Profile)
        case followChanged(following: Bool, followerCount: Int)
        case blockChanged(Bool)
    }

    enum State: Sendable, Equatable {
        case profile(Profile)
        case follow(following: Bool, followerCount: Int)
        case block(Bool)
    }

    let caller: Authenticate.Caller
    let people: PeopleEnvironment

    func mutate(action: Action) async throws -> [Mutation] {
        let viewer = self.caller.account.id
        switch action {
        case .show(let id):
            return [.profileLoaded(try await ShowProfile(self.people)(id, viewer: viewer))]
        case .follow(let id, let following):
            let result = try await FollowAccount(self.people)(following, target: id, by: viewer)
            return [.followChanged(following: result.following, followerCount: result.followerCount)]
        case .block(let id, let blocked):
            return [.blockChanged(try await BlockAccount(self.people)(blocked, target: id, by: viewer))]
        }
    }

    static func reduce(state: State?, mutation: Mutation) -> State? {
        switch mutation {
        case .profileLoaded(let profile): .profile(profile)
        case .followChanged(let following, let count): .follow(following: following, followerCount: count)
        case .blockChanged(let blocked): .block(blocked)
        }
    }
}

extension PeopleReactor.State: ResponseState {
    func response() -> Response {
        switch self {
        case .profile(let profile): JSON.response(.ok, writing: ProfileBody(profile: profile), capacity: 512)
        case .follow(let following, let count): JSON.response(.ok, writing: FollowBody(following: following, followerCount: count), capacity: 64)
        case .block(let blocked): JSON.response(.ok, writing: BlockBody(blocked: blocked), capacity: 64)
        }
    }
}
