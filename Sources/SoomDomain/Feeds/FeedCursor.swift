import Foundation

/// The opaque `cursor` / `nextCursor` strings: a feed position, bound to the feed it came from.
///
/// Clients never look inside; the server refuses with `400 invalid_cursor` a cursor that is
/// malformed or belongs to another feed (another author, parent, place or radius).
public enum FeedCursor {
    static let maximumLength = 512

    public static func encode(_ position: FeedPosition, for feed: Feed) -> String {
        Self.encode(position, scope: feed.scope)
    }

    /// The cursor of any keyset list named by `scope` (a feed's, or people, blocks, notifications).
    public static func encode(_ position: FeedPosition, scope: String) -> String {
        var fields = ["v1", scope, String(position.createdAtMicros), position.id.uuidString.lowercased()]
        if let ranking = position.ranking { fields += [String(ranking.generation), String(ranking.rank)] }
        return Base64URL.encode(Array(fields.joined(separator: "|").utf8))
    }

    public static func decode(_ text: String, for feed: Feed) throws(SoomError) -> FeedPosition {
        let ranked = if case .popular = feed { true } else { false }
        return try Self.decode(text, scope: feed.scope, ranked: ranked)
    }

    /// Decodes the cursor of the list named by `scope`; `ranked` lists (the popular feed) carry a
    /// ranking generation and rank as well.
    public static func decode(_ text: String, scope: String, ranked: Bool = false) throws(SoomError) -> FeedPosition {
        guard text.utf8.count <= Self.maximumLength, let data = Base64URL.decode(text) else { throw Self.invalid }
        let fields = String(decoding: data, as: UTF8.self).split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 4, fields[0] == "v1", fields[1] == scope, let micros = Int64(fields[2]), let id = UUID(uuidString: fields[3])
        else { throw Self.invalid }
        switch (ranked, fields.count) {
        case (true, 6):
            guard let generation = Int64(fields[4]), let rank = Int(fields[5]), rank >= 1 else { throw Self.invalid }
            return FeedPosition(createdAtMicros: micros, id: id, ranking: .init(generation: generation, rank: rank))
        case (true, _), (false, 5...):
            throw Self.invalid
        default:
            return FeedPosition(createdAtMicros: micros, id: id)
        }
    }

    static let invalid = SoomError(
        .invalidRequest, code: "invalid_cursor", message: "The cursor is malformed or belongs to another list.", field: "cursor")
}

/// `limit` (1…50, default 20) and `cursor` of a list request.
public struct PageRequest: Sendable, Equatable {
    public static let defaultLimit = 20
    public static let maximumLimit = 50

    public let limit: Int
    public let cursor: String?

    /// - Throws: `422 validation_failed` on `limit` out of range.
    public init(limit: Int?, cursor: String?) throws(SoomError) {
        let limit = limit ?? Self.defaultLimit
        guard (1...Self.maximumLimit).contains(limit) else {
            throw .validationFailed(field: "limit", "limit must be between 1 and \(Self.maximumLimit).")
        }
        self.limit = limit
        self.cursor = cursor
    }
}
