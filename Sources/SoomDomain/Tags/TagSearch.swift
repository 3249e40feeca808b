/// The query of `GET /v1/tags/search`: `q` and `limit`.
///
/// `q` is normalised like a tag (trimmed, NFC, one leading `#` removed) and must itself be a
/// valid tag — 1–15 letters, digits or `_` — since anything else is the prefix of no tag;
/// otherwise `422 validation_failed` with `field: q`. Matching ignores case (the prefix is
/// case-folded like tag keys). `limit` is 1–20, default 10.
public struct TagSearch: Sendable, Equatable {
    public static let defaultLimit = 10
    public static let maximumLimit = 20

    /// The case-folded prefix.
    public let prefix: String
    public let limit: Int

    /// - Throws: `422 validation_failed` on `q` (not a valid tag) or `limit` (outside 1–20).
    public init(q: String, limit: Int?) throws(SoomError) {
        let limit = limit ?? Self.defaultLimit
        guard (1...Self.maximumLimit).contains(limit) else {
            throw .validationFailed(field: "limit", "limit must be between 1 and \(Self.maximumLimit).")
        }
        let tag: Tag
        do {
            tag = try Tag(normalising: q, field: "q")
        } catch {
            throw .validationFailed(field: "q", "q must be the start of a tag: 1–15 letters, digits or _, optionally after #.")
        }
        self.prefix = tag.key
        self.limit = limit
    }
}
