import Foundation

extension SoomError {
    /// `404 not_found` for an account that does not exist, or that blocked the caller (the two
    /// look the same, so a block reveals nothing).
    public static let accountNotVisible = SoomError(.notFound, code: "not_found", message: "There is no such account.")

    /// `403 blocked`: the caller blocked this account, which rules out following it.
    public static let blockedByCaller = SoomError(
        .forbidden, code: "blocked", message: "You blocked this account; unblock it before following it.")
}

/// One account's profile as the caller sees it.
public struct ShowProfile: Sendable {
    let environment: PeopleEnvironment

    public init(_ environment: PeopleEnvironment) {
        self.environment = environment
    }

    /// The visit is noted (`ViewLog`) and counted within seconds.
    /// - Throws: `404 not_found` when the account does not exist or blocked the caller.
    public func callAsFunction(_ id: UUID, viewer: UUID) async throws -> Profile {
        guard let profile = try await self.environment.people.profile(of: id, viewer: viewer) else { throw SoomError.accountNotVisible }
        self.environment.views.visited(profile: id, by: viewer)
        return profile
    }
}

/// Follows or unfollows an account, idempotently.
public struct FollowAccount: Sendable {
    let environment: PeopleEnvironment

    public init(_ environment: PeopleEnvironment) {
        self.environment = environment
    }

    /// The new state and the target's follower count.
    /// - Throws: `422 validation_failed` on `id` for oneself; `404 not_found` when the account does
    ///   not exist or blocked the caller; `403 blocked` when the caller blocked it.
    public func callAsFunction(_ following: Bool, target: UUID, by viewer: UUID) async throws -> (following: Bool, followerCount: Int) {
        guard target != viewer else { throw SoomError.validationFailed(field: "id", "You cannot follow yourself.") }
        switch try await self.environment.people.setFollow(following, target: target, by: viewer, at: self.environment.now()) {
        case .done(let following, let count): return (following, count)
        case .notFound: throw SoomError.accountNotVisible
        case .blockedByViewer: throw SoomError.blockedByCaller
        }
    }
}

/// Blocks or unblocks an account, idempotently. Blocking removes the follows both ways.
public struct BlockAccount: Sendable {
    let environment: PeopleEnvironment

    public init(_ environment: PeopleEnvironment) {
        self.environment = environment
    }

    /// The new state.
    /// - Throws: `422 validation_failed` on `id` for oneself; `404 not_found` for no such account.
    public func callAsFunction(_ blocked: Bool, target: UUID, by viewer: UUID) async throws -> Bool {
        guard target != viewer else { throw SoomError.validationFailed(field: "id", "You cannot block yourself.") }
        guard try await self.environment.people.setBlock(blocked, target: target, by: viewer, at: self.environment.now()) else {
            throw SoomError.accountNotVisible
        }
        return blocked
    }
}

/// A page of an account's followers or followings.
public struct ListPeople: Sendable {
    let environment: PeopleEnvironment

    public init(_ environment: PeopleEnvironment) {
        self.environment = environment
    }

    /// - Throws: `400 invalid_cursor` for a cursor of another list; `404 not_found` when the account
    ///   does not exist or blocked the caller.
    public func callAsFunction(_ list: PeopleList, page: PageRequest, viewer: UUID) async throws -> (items: [Profile], nextCursor: String?) {
        let position = try page.cursor.map { cursor throws(SoomError) in try FeedCursor.decode(cursor, scope: list.scope) }
        guard let result = try await self.environment.people.page(of: list, after: position, limit: page.limit, viewer: viewer) else {
            throw SoomError.accountNotVisible
        }
        return (result.items, result.next.map { FeedCursor.encode($0, scope: list.scope) })
    }
}

/// A page of the accounts the caller blocked.
public struct ListBlocks: Sendable {
    static let scope = "blocks"
    let environment: PeopleEnvironment

    public init(_ environment: PeopleEnvironment) {
        self.environment = environment
    }

    public func callAsFunction(page: PageRequest, viewer: UUID) async throws -> (items: [UserSummary], nextCursor: String?) {
        let position = try page.cursor.map { cursor throws(SoomError) in try FeedCursor.decode(cursor, scope: Self.scope) }
        let result = try await self.environment.people.blocks(of: viewer, after: position, limit: page.limit)
        return (result.items, result.next.map { FeedCursor.encode($0, scope: Self.scope) })
    }
}
