import Foundation

/// What a follow or a block invalidates, in one place (as `InvalidatingCardRepository` for cards):
/// a follow or unfollow drops the follower's following-feed positions; a block made or undone
/// drops both accounts' books of likes and following-feed positions (a block removes the follows
/// both ways). Other instances hear of it from the database (migrations 0014 and 0015).
struct InvalidatingPeopleRepository: PeopleRepository {
    let base: any PeopleRepository
    let feedPages: FeedPageCache
    let viewerMarks: ViewerMarkCache

    func setFollow(_ following: Bool, target: UUID, by viewer: UUID, at time: Date) async throws -> FollowOutcome {
        let outcome = try await self.base.setFollow(following, target: target, by: viewer, at: time)
        if case .done = outcome { self.feedPages.invalidate(viewer: viewer) }
        return outcome
    }

    func setBlock(_ blocked: Bool, target: UUID, by viewer: UUID, at time: Date) async throws -> Bool {
        let found = try await self.base.setBlock(blocked, target: target, by: viewer, at: time)
        if found {
            for account in [viewer, target] {
                self.viewerMarks.invalidate(viewer: account)
                self.feedPages.invalidate(viewer: account)
            }
        }
        return found
    }

    func profile(of id: UUID, viewer: UUID) async throws -> Profile? { try await self.base.profile(of: id, viewer: viewer) }
    func page(of list: PeopleList, after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> ListPage<Profile>? {
        try await self.base.page(of: list, after: position, limit: limit, viewer: viewer)
    }
    func blocks(of viewer: UUID, after position: FeedPosition?, limit: Int) async throws -> ListPage<UserSummary> {
        try await self.base.blocks(of: viewer, after: position, limit: limit)
    }
}
