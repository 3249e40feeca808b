import Foundation
import HummingbirdTesting
import PostgresNIO
import Testing

extension TestClientProtocol {
    /// Posts a card with `tags` (or a comment card under `parent`) and returns its id.
    @discardableResult
    func postTagged(_ token: String, _ tags: [String], parent: String? = nil, story: Bool = false) async throws -> String {
        try await self.postCard(token, "태그 카드", parent: parent, extra: ["tags": tags, "story": story]).id
    }

    /// `GET` of a tag list (`{"items": [{"name","usageCount"}]}`) as (name, count) pairs.
    func tagList(_ uri: String, token: String? = nil) async throws -> [TagCount] {
        let response = try await self.send(.get, uri, token: token)
        try #require(response.status == .ok, "\(uri): \(String(buffer: response.body))")
        let items = try #require(try response.object["items"] as? [[String: Any]])
        return try items.map { item in
            try #require(item.keys.sorted() == ["name", "usageCount"], "\(item)")
            return TagCount(try #require(item["name"] as? String), try #require(item["usageCount"] as? Int))
        }
    }

    /// `usageCount` of one tag, from `GET /v1/tags/{name}`.
    func usage(_ name: String) async throws -> Int {
        let response = try await self.send(.get, "/v1/tags/\(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name)")
        try #require(response.status == .ok, "\(name): \(String(buffer: response.body))")
        return try #require(try response.object["usageCount"] as? Int)
    }
}

/// A `{"name","usageCount"}` item.
struct TagCount: Equatable, CustomStringConvertible {
    let name: String
    let count: Int

    init(_ name: String, _ count: Int) {
        self.name = name
        self.count = count
    }

    var description: String { "\(self.name)=\(self.count)" }
}

extension TestDatabase {
    /// Tags whose stored `usage_count` or `author_count` (or `tag_authors` row) differs from a
    /// recount of the (not hidden) cards that carry them, and `card_tags` rows that do not match such a card's own tag list (either way): all must be zero.
    func tagDrift() async throws -> (counts: Int, rows: Int) {
        let counts =
            try await self.scalar(
                """
                SELECT count(*)::int FROM tags t
                WHERE t.usage_count <> (SELECT count(*) FROM cards c WHERE c.hidden_at IS NULL AND t.key = ANY (SELECT lower(x) FROM unnest(c.tags) x))
                   OR t.usage_count <> (SELECT count(*) FROM card_tags ct WHERE ct.tag_key = t.key)
                   OR t.author_count <> (SELECT count(DISTINCT ct.author_id) FROM card_tags ct WHERE ct.tag_key = t.key)
                   OR t.author_count <> (SELECT count(*) FROM tag_authors ta WHERE ta.tag_key = t.key)
                """)
            + self.scalar(
                """
                SELECT count(*)::int FROM (SELECT tag_key, author_id, count(*) AS n FROM card_tags GROUP BY tag_key, author_id) truth
                FULL JOIN tag_authors ta USING (tag_key, author_id)
                WHERE truth.n IS DISTINCT FROM ta.card_count
                """)
        let rows = try await self.scalar(
            """
            SELECT count(*)::int FROM (SELECT c.id, lower(x) AS k FROM cards c, unnest(c.tags) x WHERE c.hidden_at IS NULL) expected
            FULL JOIN card_tags ct ON ct.card_id = expected.id AND ct.tag_key = expected.k
            WHERE expected.id IS NULL OR ct.card_id IS NULL
            """)
        return (counts, rows)
    }

    /// The stored count of one tag key (nil: no row).
    func storedUsage(_ key: String) async throws -> Int? {
        let rows = try await self.rows("SELECT usage_count FROM tags WHERE key = \(key)")
        return try rows.first?.decode(Int.self)
    }
}
