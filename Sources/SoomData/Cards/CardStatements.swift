import Foundation
import PostgresNIO
import SoomDomain

/// The busiest reads of single cards as prepared statements (the feeds' are in `SoomData/Feeds`).
enum CardStatements {
    /// Keyset pages ask for one row more than the largest page (50) to know whether another follows.
    static let maximumPageRows = PageRequest.maximumLimit + 1

    /// One card as the viewer sees it.
    struct Detail: CardRowStatement {
        static let sql: String = {
            var parameters = Parameters()
            let viewer = parameters.next()
            let id = parameters.next()
            return
                "SELECT \(CardRow.select(viewer: viewer)) FROM cards c \(CardRow.joins(viewer: viewer)) WHERE c.id = \(id) AND \(CardRow.readable(by: viewer))"
        }()

        let viewer: UUID
        let id: UUID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(self.viewer)
            bindings.append(self.id)
            return bindings
        }
    }

    /// Cards by ID as everyone sees them (`CardRow.sharedSelect`), only live ones: the kept cards
    /// of details and feed pages (`FeedPageCache`). Probes of the `cards` and `accounts` primary keys.
    struct Shared: CardRowStatement {
        static let sql: String = {
            var parameters = Parameters()
            let ids = parameters.next()
            return
                "SELECT \(CardRow.sharedSelect()) FROM cards c \(CardRow.sharedJoins) WHERE c.id = ANY(\(ids)::uuid[]) AND \(CardRow.live)"
        }()

        let ids: [UUID]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(self.ids)
            return bindings
        }
    }
}

extension CardStatements {
    /// What makes a shared page the viewer's: which of the cards they liked, with
    /// those cards' like counts now — probes of the `likes` and `cards` primary keys — whether
    /// they and any of the authors blocked one another, either way, or they reported one of
    /// the cards; and whether they have any block or report at all (`guarded`: only marks without
    /// are kept, `ViewerMarkCache`). One row (an aggregate over no likes still gives one).
    ///
    /// Most readers have never blocked, been blocked or reported: one probe of each index by the
    /// viewer (`blocks_list_idx`, `blocks_blocked_idx`, `reports_reporter_idx`, made once in the
    /// `viewer` CTE) says so, and only a viewer with any of them pays for the probes per author and
    /// per card (`CASE` guarantees the order). Measured with pgbench on 1.2M cards, 4 clients:
    /// 3,120 → 4,244 statements/s, where the likes probes alone give 4,502.
    struct ViewerMarks: NamedStatement {
        static let sql: String = {
            var parameters = Parameters()
            let viewer = parameters.next()
            let cards = parameters.next()
            let authors = parameters.next()
            return """
                WITH viewer AS (
                    SELECT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = \(viewer))
                           OR EXISTS (SELECT 1 FROM blocks b WHERE b.blocked_id = \(viewer)) AS blocks,
                           EXISTS (SELECT 1 FROM reports r WHERE r.reporter_id = \(viewer)) AS reports)
                , answered AS (
                    SELECT p.id AS parent_id, a.until FROM unnest(\(cards)::uuid[]) AS p(id)
                    CROSS JOIN LATERAL (
                        SELECT \(CardRow.commentedUntil) AS until FROM cards m
                        WHERE m.parent_id = p.id AND m.author_id = \(viewer) AND \(CardRow.live(as: "m"))) a
                    WHERE a.until IS NOT NULL)
                , ballots AS (
                    SELECT b.card_id, b.choices FROM poll_ballots b WHERE b.account_id = \(viewer) AND b.card_id = ANY(\(cards)::uuid[]))
                SELECT COALESCE(array_agg(l.card_id), '{}'), COALESCE(array_agg(c.like_count), '{}'),
                       COALESCE((SELECT array_agg(parent_id) FROM answered), '{}'), COALESCE((SELECT array_agg(until) FROM answered), '{}'),
                       COALESCE((SELECT array_agg(card_id) FROM ballots), '{}'), COALESCE((SELECT array_agg(choices::int) FROM ballots), '{}'),
                       CASE WHEN (SELECT blocks FROM viewer)
                            THEN EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = \(viewer) AND b.blocked_id = ANY(\(authors)::uuid[]))
                                                                   OR (b.blocked_id = \(viewer) AND b.blocker_id = ANY(\(authors)::uuid[])))
                            ELSE false END
                       OR CASE WHEN (SELECT reports FROM viewer)
                               THEN EXISTS (SELECT 1 FROM reports r WHERE r.card_id = ANY(\(cards)::uuid[]) AND r.reporter_id = \(viewer))
                               ELSE false END,
                       (SELECT blocks OR reports FROM viewer)
                FROM likes l JOIN cards c ON c.id = l.card_id
                WHERE l.account_id = \(viewer) AND l.card_id = ANY(\(cards)::uuid[])
                """
        }()
        typealias Row = SoomDomain.ViewerMarks

        let viewer: UUID
        let cards: [UUID]
        let authors: [UUID]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(self.viewer)
            bindings.append(self.cards)
            bindings.append(self.authors)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            let (cards, counts, parents, until, polls, choices, blocked, guarded) = try RowCells.decode(
                row, [UUID].self, [Int].self, [UUID].self, [Int64].self, [UUID].self, [Int].self, Bool.self, Bool.self)
            return SoomDomain.ViewerMarks(
                liked: Dictionary(zip(cards, counts), uniquingKeysWith: { first, _ in first }),
                commented: CardRow.commented(parents, until: until), ballots: CardRow.ballots(polls, choices), blocked: blocked, guarded: guarded)
        }
    }

    /// Every card the viewer liked, with its like count now, at most `limit` of them — unless
    /// the viewer has any block (either way) or report at all (`guarded`), when none are read: a
    /// viewer's whole book of likes (`ViewerMarkCache`), through `likes_account_idx` and the
    /// `cards` primary key. One row (an aggregate over no likes still gives one).
    struct LikeBook: NamedStatement {
        static let sql: String = {
            var parameters = Parameters()
            let viewer = parameters.next()
            let limit = parameters.next()
            return """
                WITH viewer AS (
                    SELECT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = \(viewer))
                           OR EXISTS (SELECT 1 FROM blocks b WHERE b.blocked_id = \(viewer))
                           OR EXISTS (SELECT 1 FROM reports r WHERE r.reporter_id = \(viewer)) AS guarded),
                liked AS (
                    SELECT l.card_id, c.like_count FROM likes l JOIN cards c ON c.id = l.card_id
                    WHERE l.account_id = \(viewer) AND NOT (SELECT guarded FROM viewer) LIMIT \(limit)),
                answered AS (
                    SELECT m.parent_id, \(CardRow.until(as: "m")) AS until FROM cards m
                    WHERE m.author_id = \(viewer) AND m.parent_id IS NOT NULL AND \(CardRow.live(as: "m")) AND NOT (SELECT guarded FROM viewer)
                    LIMIT \(limit)),
                ballots AS (
                    SELECT b.card_id, b.choices FROM poll_ballots b WHERE b.account_id = \(viewer) AND NOT (SELECT guarded FROM viewer)
                    LIMIT \(limit))
                SELECT COALESCE(array_agg(card_id), '{}'), COALESCE(array_agg(like_count), '{}'), (SELECT guarded FROM viewer),
                       COALESCE((SELECT array_agg(parent_id) FROM answered), '{}'), COALESCE((SELECT array_agg(until) FROM answered), '{}'),
                       COALESCE((SELECT array_agg(card_id) FROM ballots), '{}'), COALESCE((SELECT array_agg(choices::int) FROM ballots), '{}')
                FROM liked
                """
        }()
        typealias Row = (liked: [UUID: Int], count: Int, guarded: Bool, commented: [UUID: Date], ballots: [UUID: Ballot])

        let viewer: UUID
        let limit: Int

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(self.viewer)
            bindings.append(self.limit)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            let (cards, counts, guarded, parents, until, polls, choices) = try RowCells.decode(
                row, [UUID].self, [Int].self, Bool.self, [UUID].self, [Int64].self, [UUID].self, [Int].self)
            let commented = CardRow.commented(parents, until: until)
            return (
                Dictionary(zip(cards, counts), uniquingKeysWith: { first, _ in first }), max(cards.count, parents.count, polls.count), guarded,
                commented, CardRow.ballots(polls, choices)
            )
        }
    }
}
