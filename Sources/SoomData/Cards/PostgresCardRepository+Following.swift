import Foundation
import PostgresNIO
import SoomDomain

extension PostgresCardRepository {
    /// The following feed, fan-out on read, in one round trip.
    ///
    /// Nothing is written per follower when someone posts, so an account followed by 100,000 posts
    /// as cheaply as any other. Reading costs one index probe per account followed, whatever the
    /// size of the tables, and then only the few cards that can be on the page:
    ///
    /// 1. `heads`: each followed account's newest live top-level card after the cursor — a
    ///    `LIMIT 1` index-only probe of `cards_author_feed_idx`.
    /// 2. `bound`: the page's `limit + 1`-th newest head. The `limit + 1` newest cards overall are
    ///    all at or after it (that many distinct cards are), so only accounts whose head is at or
    ///    after it (at most `limit + 1` of them) can contribute, each with at most `limit + 1` cards.
    ///    (No bound when fewer accounts have cards: then `-infinity`.) The bound is a plain row
    ///    comparison so that it is an index condition: each of those accounts' scans stops at it.
    /// 3. Those candidates, newest first, cut to the page, then read whole with `CardRow`.
    func followingPage(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage {
        var builder = SQLBuilder()
        let viewerParameter = builder.bind(viewer)
        let rows = limit + 1
        let rowsParameter = builder.bind(rows)
        let offsetParameter = builder.bind(rows - 1)
        let after = position.map { " AND " + CardRow.after($0, &builder) } ?? ""
        let ownLive = "c.parent_id IS NULL AND \(CardRow.live)\(after)"
        builder.append(
            """
            WITH heads AS (
                SELECT f.followee_id AS author_id, h.created_at, h.id
                FROM follows f CROSS JOIN LATERAL (
                    SELECT c.created_at, c.id FROM cards c
                    WHERE c.author_id = f.followee_id AND \(ownLive)
                    ORDER BY c.created_at DESC, c.id DESC LIMIT 1) h
                WHERE f.follower_id = \(viewerParameter)),
            bound AS (
                SELECT created_at, id FROM (
                    (SELECT created_at, id FROM heads ORDER BY created_at DESC, id DESC OFFSET \(offsetParameter) LIMIT 1)
                    UNION ALL SELECT '-infinity'::timestamptz, '00000000-0000-0000-0000-000000000000'::uuid) b
                ORDER BY created_at DESC LIMIT 1),
            candidates AS (
                SELECT k.created_at, k.id
                FROM heads hd CROSS JOIN LATERAL (
                    SELECT c.created_at, c.id FROM cards c
                    WHERE c.author_id = hd.author_id AND \(ownLive) AND (c.created_at, c.id) >= (SELECT created_at, id FROM bound)
                    ORDER BY c.created_at DESC, c.id DESC LIMIT \(rowsParameter)) k
                WHERE (hd.created_at, hd.id) >= (SELECT created_at, id FROM bound)),
            page AS (SELECT id FROM candidates ORDER BY created_at DESC, id DESC LIMIT \(rowsParameter))
            SELECT \(CardRow.select(viewer: viewerParameter))
            FROM page JOIN cards c ON c.id = page.id \(CardRow.joins(viewer: viewerParameter))
            WHERE \(CardRow.visible(to: viewerParameter))
            ORDER BY c.created_at DESC, c.id DESC
            """)
        return Self.page(try await self.database.rows(builder.query).map(CardRow.decode), limit: limit)
    }
}
