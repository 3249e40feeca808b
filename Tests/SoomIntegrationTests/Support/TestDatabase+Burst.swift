import Foundation

extension TestDatabase {
    /// A burst of data written straight into the tables, as a busy first hour or a bulk import
    /// would leave them, with nobody running `ANALYZE`: `accounts` new accounts (no keys) and
    /// `cards` top-level cards spread over them one second apart, newest first; with `tags` > 0,
    /// each card carries one of that many tags (`grow0`…), and `hotPercent` of the cards also the
    /// tag `hot` (real tags are skewed: one is on a few percent of all cards), counted in `tags`
    /// and `card_tags`.
    func insertBurst(accounts: Int, cards: Int, tags: Int = 0, hotPercent: Int = 0) async throws {
        let hot = hotPercent > 0 ? " || CASE WHEN i % 100 < \(hotPercent) THEN ARRAY['hot'] ELSE '{}'::text[] END" : ""
        let tagArray = tags > 0 ? "ARRAY['grow' || i % \(tags)]\(hot)" : "'{}'::text[]"
        try await self.execute(
            """
            WITH authors AS (
                INSERT INTO accounts (id, key_fingerprint, public_key, nickname, nickname_key, created_at)
                SELECT gen_random_uuid(), sha256(n::text::bytea), '\\x00', 'grow' || n, 'grow' || n, now()
                FROM generate_series(1, \(unescaped: String(accounts))) n RETURNING id),
            numbered AS (SELECT id, row_number() OVER () AS n FROM authors)
            INSERT INTO cards (id, author_id, content, font, background_kind, background_ref, tags, created_at)
            SELECT gen_random_uuid(), a.id, 'card ' || i, 'default', 'default', 'sea-calm', \(unescaped: tagArray),
                   now() - i * interval '1 second'
            FROM generate_series(1, \(unescaped: String(cards))) i JOIN numbered a ON a.n = 1 + i % \(unescaped: String(accounts))
            """)
        guard tags > 0 else { return }
        // The tags first: the tag rows' trigger counts each tag's authors on its `tags` row.
        try await self.execute(
            "INSERT INTO tags (key, name, usage_count) SELECT k, k, count(*) FROM cards c, unnest(c.tags) k GROUP BY k")
        try await self.execute(
            "INSERT INTO card_tags (tag_key, card_id, author_id, created_at) SELECT unnest(c.tags), c.id, c.author_id, c.created_at FROM cards c")
    }
}
