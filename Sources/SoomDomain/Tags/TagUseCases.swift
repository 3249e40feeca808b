import Foundation

/// The top ten: at most ten in-use tags, highest `usageCount` first, ties by name ascending
/// (compared ignoring case). Possibly from `TagRankingCache`, never older than a second.
public struct RankTags: Sendable {
    let environment: TagEnvironment

    public init(_ environment: TagEnvironment) {
        self.environment = environment
    }

    public func callAsFunction() async throws -> [TagUsage] {
        let startedAt = self.environment.now()
        if let cached = self.environment.rankingCache.ranking(at: startedAt) { return cached }
        let ranking = try await self.environment.tags.ranked(limit: TagEnvironment.rankedSize)
        self.environment.rankingCache.store(ranking, readAt: startedAt)
        return ranking
    }
}

/// Tags in use whose name starts with the query, ignoring case; highest count first.
public struct SearchTags: Sendable {
    let environment: TagEnvironment

    public init(_ environment: TagEnvironment) {
        self.environment = environment
    }

    public func callAsFunction(_ search: TagSearch) async throws -> [TagUsage] {
        try await self.environment.tags.search(prefix: search.prefix, limit: search.limit)
    }
}

/// One tag, used or not: its shown name, `usageCount` (0 when unused) and, for a signed-in
/// caller, whether it is among their favourites (always false for anonymous callers).
public struct ShowTag: Sendable {
    let environment: TagEnvironment

    public init(_ environment: TagEnvironment) {
        self.environment = environment
    }

    /// - Throws: `422 validation_failed` (`field: name`) when `name` is not a valid tag.
    public func callAsFunction(_ name: String, viewer: UUID?) async throws -> TagDetail {
        try await self.environment.tags.detail(of: try Tag(normalising: name, field: "name"), viewer: viewer)
    }
}

/// Adds or removes a favourite tag, idempotently; at most nine (`422 favorite_limit`).
public struct FavoriteTag: Sendable {
    let environment: TagEnvironment

    public init(_ environment: TagEnvironment) {
        self.environment = environment
    }

    /// The favourite state afterwards.
    /// - Throws: `422 validation_failed` (`field: name`) for an invalid name or, when favouriting, a
    ///   name with a refused word; `422 favorite_limit`.
    public func callAsFunction(_ favorite: Bool, name: String, account: UUID) async throws -> Bool {
        let tag = try Tag(normalising: name, field: "name")
        if favorite { try self.environment.switches.refusedWords.require([tag], field: "name") }
        switch try await self.environment.tags.setFavorite(favorite, tag: tag, account: account, limit: TagEnvironment.favoriteLimit) {
        case .done(let favorite): return favorite
        case .limitReached: throw SoomError.favoriteLimit
        }
    }
}

/// The caller's favourite tags with their current counts.
public struct ListFavoriteTags: Sendable {
    let environment: TagEnvironment

    public init(_ environment: TagEnvironment) {
        self.environment = environment
    }

    public func callAsFunction(of account: UUID) async throws -> [TagUsage] {
        try await self.environment.tags.favorites(of: account)
    }
}

extension SoomError {
    public static let favoriteLimit = SoomError(
        .validation, code: "favorite_limit", message: "An account has at most \(TagEnvironment.favoriteLimit) favourite tags.")
}
