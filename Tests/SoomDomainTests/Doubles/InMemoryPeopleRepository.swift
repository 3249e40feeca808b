import Foundation
import SoomDomain
import Synchronization

/// `PeopleRepository` in memory: follows and blocks as sets of pairs, with the contract's rules, so
/// the use cases' mapping of outcomes to errors can be tested without a database.
final class InMemoryPeopleRepository: PeopleRepository {
    struct Storage {
        var accounts: Set<UUID> = []
        var follows: [(follower: UUID, followee: UUID, at: Date)] = []
        var blocks: [(blocker: UUID, blocked: UUID, at: Date)] = []
        var calls = 0
    }

    let storage = Mutex(Storage())

    init(accounts: [UUID]) {
        self.storage.withLock { $0.accounts = Set(accounts) }
    }

    var calls: Int { self.storage.withLock { $0.calls } }

    private static func blocked(_ storage: Storage, _ blocker: UUID, _ blocked: UUID) -> Bool {
        storage.blocks.contains { $0.blocker == blocker && $0.blocked == blocked }
    }

    private static func profile(_ storage: Storage, _ id: UUID, viewer: UUID) -> Profile {
        Profile(
            user: UserSummary(id: id, nickname: "n\(id.uuidString.prefix(4))", profileImage: nil), bio: "", cardCount: 0,
            followerCount: storage.follows.count { $0.followee == id }, followingCount: storage.follows.count { $0.follower == id },
            isFollowing: storage.follows.contains { $0.follower == viewer && $0.followee == id },
            isFollowedBy: storage.follows.contains { $0.follower == id && $0.followee == viewer },
            isBlocked: Self.blocked(storage, viewer, id), isMe: id == viewer)
    }

    func profile(of id: UUID, viewer: UUID) async throws -> Profile? {
        self.storage.withLock { storage in
            storage.calls += 1
            guard storage.accounts.contains(id), !Self.blocked(storage, id, viewer) else { return nil }
            return Self.profile(storage, id, viewer: viewer)
        }
    }

    func setFollow(_ following: Bool, target: UUID, by viewer: UUID, at time: Date) async throws -> FollowOutcome {
        self.storage.withLock { storage in
            storage.calls += 1
            guard storage.accounts.contains(target), !Self.blocked(storage, target, viewer) else { return .notFound }
            guard !Self.blocked(storage, viewer, target) else { return .blockedByViewer }
            storage.follows.removeAll { $0.follower == viewer && $0.followee == target }
            if following { storage.follows.append((viewer, target, time)) }
            return .done(following: following, followerCount: storage.follows.count { $0.followee == target })
        }
    }

    func setBlock(_ blocked: Bool, target: UUID, by viewer: UUID, at time: Date) async throws -> Bool {
        self.storage.withLock { storage in
            storage.calls += 1
            guard storage.accounts.contains(target) else { return false }
            storage.blocks.removeAll { $0.blocker == viewer && $0.blocked == target }
            if blocked {
                storage.blocks.append((viewer, target, time))
                storage.follows.removeAll { Set([$0.follower, $0.followee]) == Set([viewer, target]) }
            }
            return true
        }
    }

    func page(of list: PeopleList, after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> ListPage<Profile>? {
        self.storage.withLock { storage in
            storage.calls += 1
            let (subject, followers) =
                switch list {
                case .followers(let id): (id, true)
                case .following(let id): (id, false)
                }
            guard storage.accounts.contains(subject), !Self.blocked(storage, subject, viewer) else { return nil }
            let rows = storage.follows.filter { followers ? $0.followee == subject : $0.follower == subject }
                .map { (id: followers ? $0.follower : $0.followee, micros: Int64($0.at.timeIntervalSince1970 * 1_000_000)) }
                .sorted { ($0.micros, $0.id.uuidString) > ($1.micros, $1.id.uuidString) }
                .filter { row in position.map { (row.micros, row.id.uuidString) < ($0.createdAtMicros, $0.id.uuidString) } ?? true }
                .prefix(limit + 1)
                .map { (item: Self.profile(storage, $0.id, viewer: viewer), position: FeedPosition(createdAtMicros: $0.micros, id: $0.id)) }
            return ListPage(rows: Array(rows), limit: limit)
        }
    }

    func blocks(of viewer: UUID, after position: FeedPosition?, limit: Int) async throws -> ListPage<UserSummary> {
        self.storage.withLock { storage in
            storage.calls += 1
            let rows = storage.blocks.filter { $0.blocker == viewer }.map {
                (
                    item: UserSummary(id: $0.blocked, nickname: "n", profileImage: nil),
                    position: FeedPosition(createdAtMicros: Int64($0.at.timeIntervalSince1970 * 1_000_000), id: $0.blocked)
                )
            }
            return ListPage(rows: Array(rows.prefix(limit + 1)), limit: limit)
        }
    }
}
