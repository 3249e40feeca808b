import Foundation
import PostgresNIO
import SoomDomain

/// The busiest card reads as prepared statements, parsed once per connection and — after
/// PostgreSQL's first five executions — planned once too. (The other feeds build their SQL per
/// request with `SQLBuilder`.)
///
/// A page's `LIMIT $n` alone would keep PostgreSQL re-planning every execution: not knowing `$n`,
/// its generic plan assumes a tenth of the table and looks far dearer than the custom plans, so it
/// never switches (and a generic plan that costly would also be JIT-compiled). Hence the page is
/// read from a subquery with the constant bound `maximumPageRows` and cut to `$n` outside; rows
/// are pulled one by one, so only `$n` are ever read, and the generic plan is as cheap as it is.
enum CardStatements {
    static let from = "FROM cards c \(CardRow.joins(viewer: "$1"))"

    /// Keyset pages ask for one row more than the largest page (50) to know whether another follows.
    static let maximumPageRows = PageRequest.maximumLimit + 1

    /// One card as the viewer ($1) sees it.
    struct Detail: CardRowStatement {
        static let sql = "SELECT \(CardRow.select(viewer: "$1")) \(CardStatements.from) WHERE c.id = $2 AND \(CardRow.readable(by: "$1"))"

        let viewer: UUID
        let id: UUID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(self.viewer)
            bindings.append(self.id)
            return bindings
        }
    }

    /// Cards by ID (`$1`) as everyone sees them (`$2`: nobody, `PostgresCardRepository.nobody`),
    /// only live ones: the kept cards of details and following pages (`FeedPageCache`). Probes of
    /// the `cards` and `accounts` primary keys.
    struct Shared: CardRowStatement {
        static let sql =
            "SELECT \(CardRow.select(viewer: "$2")) FROM cards c \(CardRow.joins(viewer: "$2")) WHERE c.id = ANY($1::uuid[]) AND \(CardRow.live)"

        let ids: [UUID]
        let nobody: UUID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(self.ids)
            bindings.append(self.nobody)
            return bindings
        }
    }

    /// Where an author's (`$1`) first page of top-level cards is: live cards' positions, newest
    /// first, through `cards_author_feed_idx` (`$2` the page's rows).
    struct AuthorPositionsFirst: FirstPageStatement, PositionRowStatement {
        static let sql = KeysetPageSQL.text(
            columns: CardRow.position, from: "FROM cards c", scope: CardStatements.authorScope, keys: ("c.created_at", "c.id"), first: 2,
            afterCursor: false)

        let author: UUID
        let limit: Int

        /// `$1` is the author here.
        var viewer: UUID { self.author }
    }

    /// `AuthorPositionsFirst` below a keyset position (`$2`, `$3`; `$4` the page's rows).
    struct AuthorPositionsAfter: LaterPageStatement, PositionRowStatement {
        static let sql = KeysetPageSQL.text(
            columns: CardRow.position, from: "FROM cards c", scope: CardStatements.authorScope, keys: ("c.created_at", "c.id"), first: 2,
            afterCursor: true)

        let author: UUID
        let position: FeedPosition
        let limit: Int

        /// `$1` is the author here.
        var viewer: UUID { self.author }
    }

    /// An author's (`$1`) live top-level cards.
    static let authorScope = "c.author_id = $1 AND c.parent_id IS NULL AND \(CardRow.live)"

    /// The first page of the latest feed.
    struct LatestFirst: FirstPageStatement, SharedPageStatement {
        static let sql = Self.text(CardRow.pageReading(for: "$1"))
        static let sharedSQL = Self.text(CardRow.sharedPageReading(for: "$1"))

        private static func text(_ reading: CardRow.PageReading) -> String {
            KeysetPageSQL.text(
                columns: reading.columns, from: CardStatements.from, scope: "c.parent_id IS NULL AND \(reading.filter)",
                keys: ("c.created_at", "c.id"), first: 2, afterCursor: false)
        }

        let viewer: UUID
        let limit: Int
    }

    /// A later page of the latest feed, after a keyset position.
    struct LatestAfter: LaterPageStatement, SharedPageStatement {
        static let sql = Self.text(CardRow.pageReading(for: "$1"))
        static let sharedSQL = Self.text(CardRow.sharedPageReading(for: "$1"))

        private static func text(_ reading: CardRow.PageReading) -> String {
            KeysetPageSQL.text(
                columns: reading.columns, from: CardStatements.from, scope: "c.parent_id IS NULL AND \(reading.filter)",
                keys: ("c.created_at", "c.id"), first: 2, afterCursor: true)
        }

        let viewer: UUID
        let position: FeedPosition
        let limit: Int
    }
}

/// A feed statement that also has a *shared* form (`sharedSQL`, see `FeedPageCache`): the same
/// page for every viewer — blocks do not filter it — with the viewer's likes and, in one more
/// column, whether the viewer and the card's author blocked one another. One read gives both the
/// page to keep and the marks that make it the viewer's.
protocol SharedPageStatement: CardRowStatement {
    static var sharedSQL: String { get }
}

/// The shared form of `Base`: the same bindings, `Base.sharedSQL`, rows with the block column.
struct SharedPageRead<Base: SharedPageStatement>: NamedStatement {
    static var sql: String { Base.sharedSQL }
    typealias Row = (card: Card, micros: Int64, blocked: Bool)

    let base: Base

    func makeBindings() throws -> PostgresBindings { try self.base.makeBindings() }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        // `blocked` is the column right after `CardRow.select`'s (`CardRow.sharedPageReading`).
        var cells = RowCells(row)
        let (card, micros) = try CardRow.decode(&cells)
        return (card, micros, try cells.next(Bool.self))
    }
}

extension CardStatements {
    /// What makes a shared page the viewer's (`$1`): which of the cards (`$2`) they liked, with
    /// those cards' like counts now — probes of the `likes` and `cards` primary keys — whether
    /// they and any of the authors (`$3`) blocked one another, either way, or they reported one of
    /// the cards; and whether they have any block or report at all (`guarded`: only marks without
    /// are kept, `ViewerMarkCache`). One row (an aggregate over no likes still gives one).
    ///
    /// Most readers have never blocked, been blocked or reported: one probe of each index by the
    /// viewer (`blocks_list_idx`, `blocks_blocked_idx`, `reports_reporter_idx`, made once in the
    /// `viewer` CTE) says so, and only a viewer with any of them pays for the probes per author and
    /// per card (`CASE` guarantees the order). Measured with pgbench on 1.2M cards, 4 clients:
    /// 3,120 → 4,244 statements/s, where the likes probes alone give 4,502.
    struct ViewerMarks: NamedStatement {
        static let sql = """
            WITH viewer AS (
                SELECT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = $1)
                       OR EXISTS (SELECT 1 FROM blocks b WHERE b.blocked_id = $1) AS blocks,
                       EXISTS (SELECT 1 FROM reports r WHERE r.reporter_id = $1) AS reports)
            SELECT COALESCE(array_agg(l.card_id), '{}'), COALESCE(array_agg(c.like_count), '{}'),
                   CASE WHEN (SELECT blocks FROM viewer)
                        THEN EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = $1 AND b.blocked_id = ANY($3::uuid[]))
                                                               OR (b.blocked_id = $1 AND b.blocker_id = ANY($3::uuid[])))
                        ELSE false END
                   OR CASE WHEN (SELECT reports FROM viewer)
                           THEN EXISTS (SELECT 1 FROM reports r WHERE r.card_id = ANY($2::uuid[]) AND r.reporter_id = $1)
                           ELSE false END,
                   (SELECT blocks OR reports FROM viewer)
            FROM likes l JOIN cards c ON c.id = l.card_id
            WHERE l.account_id = $1 AND l.card_id = ANY($2::uuid[])
            """
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
            let (cards, counts, blocked, guarded) = try row.decode(([UUID], [Int], Bool, Bool).self)
            return SoomDomain.ViewerMarks(
                liked: Dictionary(zip(cards, counts), uniquingKeysWith: { first, _ in first }), blocked: blocked, guarded: guarded)
        }
    }
}

/// A feed's first page that needs only the viewer (`$1`; for an author's positions, the author)
/// and the page's rows (`$2`, at most `CardStatements.maximumPageRows`).
protocol FirstPageStatement: NamedStatement {
    var viewer: UUID { get }
    var limit: Int { get }
}

extension FirstPageStatement {
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(self.viewer)
        bindings.append(min(self.limit, CardStatements.maximumPageRows))
        return bindings
    }
}

/// A feed's later page: the viewer (`$1`), the cursor's microseconds (`$2`) and card ID (`$3`),
/// and the page's rows (`$4`, at most `CardStatements.maximumPageRows`).
protocol LaterPageStatement: NamedStatement {
    var viewer: UUID { get }
    var position: FeedPosition { get }
    var limit: Int { get }
}

extension LaterPageStatement {
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(self.viewer)
        bindings.append(self.position.createdAtMicros)
        bindings.append(self.position.id)
        bindings.append(min(self.limit, CardStatements.maximumPageRows))
        return bindings
    }
}
