import Foundation

/// Storage for follows and blocks, and the profiles they show through. Every write is one
/// transaction that changes the rows and the counters that count them (`followerCount`,
/// `followingCount`) together, exact under any concurrency.
///
/// A block hides each side from the other: `nil` / `.notFound` wherever the target blocked the
/// viewer, and lists leave out accounts blocked either way.
public protocol PeopleRepository: Sendable {
    /// The account as `viewer` sees it; nil when it does not exist or blocked the viewer.
    func profile(of id: UUID, viewer: UUID) async throws -> Profile?
    /// Follows or unfollows `target`, idempotently (a new follow notifies the target).
    func setFollow(_ following: Bool, target: UUID, by viewer: UUID, at time: Date) async throws -> FollowOutcome
    /// Blocks (removing follows both ways) or unblocks `target`, idempotently.
    func setBlock(_ blocked: Bool, target: UUID, by viewer: UUID, at time: Date) async throws -> Bool
    /// A page of an account's followers or followings, newest follow first, as `viewer` sees them.
    /// Nil when the account does not exist or blocked the viewer.
    func page(of list: PeopleList, after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> ListPage<Profile>?
    /// A page of the accounts `viewer` blocked, newest block first.
    func blocks(of viewer: UUID, after position: FeedPosition?, limit: Int) async throws -> ListPage<UserSummary>
}

/// What a follow or unfollow did.
public enum FollowOutcome: Sendable, Equatable {
    /// `following` is now the state; `followerCount` is the target's count after the change.
    case done(following: Bool, followerCount: Int)
    /// No such account, or it blocked the viewer.
    case notFound
    /// The viewer blocked the target.
    case blockedByViewer
}

/// The lists of people a client can page through.
public enum PeopleList: Sendable, Equatable {
    case followers(of: UUID)
    case following(of: UUID)

    /// Names the list; a cursor is valid only for the list it came from.
    public var scope: String {
        switch self {
        case .followers(let id): "followers:\(id.uuidString.lowercased())"
        case .following(let id): "following:\(id.uuidString.lowercased())"
        }
    }
}
