import Foundation

/// Storage for tag usage and favourite tags.
///
/// `usageCount` is the number of live cards (top-level and comment cards) carrying the tag. The
/// card repository keeps it exact in the same transaction as every change to those cards; this
/// protocol only reads it, and writes favourites.
public protocol TagRepository: Sendable {
    /// At most `limit` tags with `usageCount > 0`, highest count first, ties by key (the
    /// case-folded name) ascending. Served from an index: the cost does not grow with the cards.
    func ranked(limit: Int) async throws -> [TagUsage]
    /// In-use tags whose key starts with `prefix` (already case-folded), highest count first.
    func search(prefix: String, limit: Int) async throws -> [TagUsage]
    /// The tag's shown name (the first spelling seen, or `tag.name` when never used), its
    /// usage count (0 when unused) and whether `viewer` (if any) has it among their favourites.
    func detail(of tag: Tag, viewer: UUID?) async throws -> TagDetail
    /// Adds or removes a favourite, idempotently. Adding a tenth distinct favourite changes
    /// nothing and answers `.limitReached` — exact under concurrency.
    func setFavorite(_ favorite: Bool, tag: Tag, account: UUID, limit: Int) async throws -> FavoriteOutcome
    /// The account's favourite tags with their counts, oldest favourite first.
    func favorites(of account: UUID) async throws -> [TagUsage]
}

/// `{"name","usageCount"}`.
public struct TagUsage: Sendable, Equatable {
    public let name: String
    public let usageCount: Int

    public init(name: String, usageCount: Int) {
        self.name = name
        self.usageCount = usageCount
    }
}

/// `{"name","usageCount","isFavorite"}`.
public struct TagDetail: Sendable, Equatable {
    public let name: String
    public let usageCount: Int
    public let isFavorite: Bool

    public init(name: String, usageCount: Int, isFavorite: Bool) {
        self.name = name
        self.usageCount = usageCount
        self.isFavorite = isFavorite
    }
}

public enum FavoriteOutcome: Sendable, Equatable {
    /// The tag is (or is no longer) a favourite — also when it already was (or was not).
    case done(favorite: Bool)
    /// The account already has the maximum number of other favourites.
    case limitReached
}
