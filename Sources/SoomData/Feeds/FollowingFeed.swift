import Foundation
import PostgresNIO
import SoomDomain

/// The following feed: top-level cards of the accounts the viewer follows, newest first. Which
/// cards a page holds is the viewer's own, read apart (`positions`), so pages are made from kept
/// cards (`PositionSource`).
struct FollowingFeed: PositionSource {
    let database: Database

    var positionsAreShared: Bool { false }

    func page(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        FeedPage(rows: try await self.database.rows(FollowingStatements.Page(viewer: viewer, position: position, rows: limit + 1)), limit: limit)
    }

    /// The inbox alone when it holds the whole page (`FollowingStatements.inboxSQL`), else the full statement.
    func positions(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> [FeedPosition] {
        let boxed = try await self.database.rows(FollowingStatements.Inbox(viewer: viewer, position: position, rows: limit + 1))
        if boxed.count > limit { return boxed }
        return try await self.database.rows(PositionsRead(base: FollowingStatements.Page(viewer: viewer, position: position, rows: limit + 1)))
    }
}

/// The following feed as prepared statements: one round trip, with three ways to find a page and
/// PostgreSQL choosing between them per request (one-time filters, so a single generic plan
/// serves every viewer).
///
/// - **An inbox** (readers who follow `wideFollowing` accounts or more, once the
///   `following-inbox` job has filled it; migration 0013): `box` reads the reader's
///   `following_inbox` rows newest first, skipping cards no longer live and accounts no longer
///   followed. It covers cards from `accounts.inbox_since` on (about a week); a page that reaches
///   that edge is completed below it by fan-out on read. The inbox was filled when the cards were
///   posted, so a post writes one row per *wide* follower of its author, and nothing for the rest.
///
/// Fan-out on read, for everyone else and below an inbox's edge:
///
/// - **Few follows** (fewer than `wideFollowing`): *per-author probes*. `heads` takes each
///   followed account's newest live top-level card below the cursor (a `LIMIT 1` index-only probe
///   of `cards_author_feed_idx`); `bound` is the page's `limit + 1`-th newest head — the
///   `limit + 1` newest cards overall are all at or after it, so only accounts whose head is at or
///   after it (at most `limit + 1`) can contribute, each with at most `limit + 1` cards. The cost
///   is one probe per account followed.
/// - **Many follows**: *a window of the latest feed*. Someone who follows thousands of accounts
///   finds their cards densely among everyone's newest cards, so `hits` walks `cards_latest_idx`
///   below the cursor and keeps the cards of followed authors (one probe of the `follows` primary
///   key each; `OFFSET 0` keeps that a per-row probe rather than a join that would read all the
///   follows) until the page is full. It reads about `limit ÷ (share of new cards by followed
///   accounts)` entries — ~200 for 5,000 follows among 50,000 posting accounts — however many
///   accounts are followed. The walk stops after `window` entries; when that is not enough (the
///   followed accounts post rarely), the per-author probes fill the rest of the page from below
///   the window's last entry (`edge`), so the page is always exactly the newest cards of followed
///   accounts.
///
/// The threshold: a per-author probe costs about eight window entries, so with `A` accounts
/// posting, the window wins from about √(2A) follows. At worst (the newest cards are all by
/// accounts the reader does not follow) a page costs the full window and its edge on top of the
/// probes.
///
/// As in `PageStatement`, inner bounds are constants and the page's rows are cut outside, so that
/// the generic plan is costed for a few rows.
enum FollowingStatements {
    /// From this many follows on, a page starts with the window walk, and the follow that reaches
    /// it opens the reader's inbox (`set_follow`).
    static let wideFollowing = 256

    /// How many of the newest cards below the cursor the window walk reads at most.
    static let window = 4_000

    static let rows = CardStatements.maximumPageRows

    /// The statement's text, with `PageStatement`'s parameters (the viewer, the cursor, the page's
    /// rows). With `positionsOnly`, it ends with the page's positions (ID, microseconds) instead of its
    /// cards as the viewer sees them: every one live, blocks and reports not applied (the
    /// viewer's marks say; `ReadFeed.followingFromCards`).
    static func sql(positionsOnly: Bool) -> String {
        var parameters = Parameters()
        let viewer = parameters.next()
        let position = "(timestamptz 'epoch' + \(parameters.next())::int8 * interval '1 microsecond', \(parameters.next()))"
        let pageRows = parameters.next()
        let after = " AND (c.created_at, c.id) < \(position)"
        // Fan-out on read serves only what the inbox does not hold: cards before its lower edge.
        // The window walks from the cursor and filters by the edge after reading (as a condition of
        // its index scan, the planner would price the walk for a third of the table and read it
        // whole); only the page that crosses the edge walks entries above it.
        func belowInbox(_ alias: String) -> String { " AND \(alias).created_at < coalesce((SELECT since FROM me), 'infinity'::timestamptz)" }
        let ownLive =
            "c.parent_id IS NULL AND \(CardRow.live)\(after)\(belowInbox("c")) AND (c.created_at, c.id) < (SELECT created_at, id FROM upper)"
        return """
            WITH me AS (
                SELECT following_count >= \(wideFollowing) AS wide, CASE WHEN inbox_ready THEN inbox_since END AS since
                FROM accounts WHERE id = \(viewer)),
            box AS (
                SELECT * FROM (
                    SELECT i.created_at, i.card_id AS id FROM following_inbox i JOIN cards c ON c.id = i.card_id
                    WHERE i.reader_id = \(viewer) AND i.created_at >= (SELECT since FROM me) AND (i.created_at, i.card_id) < \(position)
                      AND \(CardRow.live)
                      AND EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = \(viewer) AND f.followee_id = i.author_id OFFSET 0)
                    ORDER BY i.created_at DESC, i.card_id DESC LIMIT \(rows)) b
                LIMIT \(pageRows)),
            below AS (
                SELECT (SELECT since FROM me) IS NULL OR (SELECT count(*) FROM box) < \(pageRows) AS needed),
            hits AS (
                SELECT * FROM (
                    SELECT r.created_at, r.id FROM (
                        SELECT c.created_at, c.id, c.author_id, c.expires_at FROM cards c
                        WHERE c.parent_id IS NULL AND c.hidden_at IS NULL\(after)
                          AND (SELECT wide FROM me) AND (SELECT needed FROM below)
                        ORDER BY c.created_at DESC, c.id DESC LIMIT \(window)) r
                    WHERE \(CardRow.unexpired(as: "r"))\(belowInbox("r"))
                      AND EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = \(viewer) AND f.followee_id = r.author_id OFFSET 0)
                    ORDER BY r.created_at DESC, r.id DESC LIMIT \(rows)) h
                LIMIT \(pageRows)),
            edge AS (
                SELECT c.created_at, c.id FROM cards c
                WHERE c.parent_id IS NULL AND c.hidden_at IS NULL\(after)
                  AND (SELECT wide FROM me) AND (SELECT needed FROM below)
                ORDER BY c.created_at DESC, c.id DESC OFFSET \(window - 1) LIMIT 1),
            fallback AS (
                SELECT (SELECT needed FROM below) AND (NOT COALESCE((SELECT wide FROM me), false)
                    OR ((SELECT count(*) FROM hits) < \(pageRows) AND EXISTS (SELECT 1 FROM edge))) AS needed),
            upper AS (
                SELECT created_at, id FROM (
                    SELECT created_at, id FROM edge
                    UNION ALL SELECT 'infinity'::timestamptz, 'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid) u
                ORDER BY created_at LIMIT 1),
            heads AS (
                SELECT f.followee_id AS author_id, h.created_at, h.id
                FROM follows f CROSS JOIN LATERAL (
                    SELECT c.created_at, c.id FROM cards c
                    WHERE c.author_id = f.followee_id AND \(ownLive)
                    ORDER BY c.created_at DESC, c.id DESC LIMIT 1) h
                WHERE f.follower_id = \(viewer) AND (SELECT needed FROM fallback)),
            bound AS (
                SELECT created_at, id FROM (
                    (SELECT created_at, id FROM heads ORDER BY created_at DESC, id DESC OFFSET \(pageRows) - 1 LIMIT 1)
                    UNION ALL SELECT '-infinity'::timestamptz, '00000000-0000-0000-0000-000000000000'::uuid) b
                ORDER BY created_at DESC LIMIT 1),
            candidates AS (
                SELECT k.created_at, k.id
                FROM heads hd CROSS JOIN LATERAL (
                    SELECT c.created_at, c.id FROM cards c
                    WHERE c.author_id = hd.author_id AND \(ownLive) AND (c.created_at, c.id) >= (SELECT created_at, id FROM bound)
                    ORDER BY c.created_at DESC, c.id DESC LIMIT \(pageRows)) k
                WHERE (hd.created_at, hd.id) >= (SELECT created_at, id FROM bound)),
            page AS (
                SELECT * FROM (
                    SELECT created_at, id FROM box UNION ALL SELECT created_at, id FROM hits
                    UNION ALL SELECT created_at, id FROM candidates
                    ORDER BY created_at DESC, id DESC LIMIT \(rows)) p
                LIMIT \(pageRows))
            \(positionsOnly ? Self.positions : Self.cards(viewer: viewer))
            """
    }

    /// The end of the statement that reads the page's cards as the viewer sees them.
    private static func cards(viewer: String) -> String {
        """
        SELECT \(CardRow.select(viewer: viewer))
        FROM page JOIN cards c ON c.id = page.id \(CardRow.joins(viewer: viewer))
        WHERE \(CardRow.visible(to: viewer))
        ORDER BY c.created_at DESC, c.id DESC
        """
    }

    /// The end of the statement that reads only the page's positions.
    private static let positions = "SELECT id, (extract(epoch FROM created_at) * 1000000)::int8 FROM page ORDER BY created_at DESC, id DESC"

    /// A page's positions from the reader's inbox alone (`box` of `sql`): newest first, live
    /// cards of accounts still followed, from the inbox's edge on — nothing when the reader has no
    /// ready inbox. When it gives the page's `limit + 1` rows, those are the page (the statement
    /// would not look below the edge); otherwise the full statement is read. A cheap statement
    /// with a plain plan for the common case: a reader of many follows, within the last week.
    static let inboxSQL: String = {
        var parameters = Parameters()
        let viewer = parameters.next()
        return KeysetPageSQL.text(
            columns: "i.card_id, (extract(epoch FROM i.created_at) * 1000000)::int8",
            from: "FROM following_inbox i JOIN cards c ON c.id = i.card_id",
            scope: """
                i.reader_id = \(viewer) AND i.created_at >= (SELECT a.inbox_since FROM accounts a WHERE a.id = \(viewer) AND a.inbox_ready) \
                AND \(CardRow.live) AND EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = \(viewer) AND f.followee_id = i.author_id OFFSET 0)
                """,
            keys: ("i.created_at", "i.card_id"), parameters: &parameters)
    }()

    /// A page's positions from the inbox alone.
    struct Inbox: PageStatement, PositionRowStatement {
        static let sql = FollowingStatements.inboxSQL

        let viewer: UUID
        let position: FeedPosition?
        let rows: Int

        func bindSubject(to bindings: inout PostgresBindings) { bindings.append(self.viewer) }
    }

    /// A page as the viewer sees it (`sql`), or its positions only (`positionsSQL`).
    struct Page: PageStatement, PositionsStatement {
        static let sql = FollowingStatements.sql(positionsOnly: false)
        static let positionsSQL = FollowingStatements.sql(positionsOnly: true)

        let viewer: UUID
        let position: FeedPosition?
        let rows: Int

        func bindSubject(to bindings: inout PostgresBindings) { bindings.append(self.viewer) }
    }
}
