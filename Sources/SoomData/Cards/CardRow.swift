import Foundation
import PostgresNIO
import SoomDomain

/// How a card is read: one select list (the full `Card` shape, author and viewer flags
/// included) so that every feed is one round trip whatever the page size.
enum CardRow {
    /// A card is live when it has not expired and has not been hidden by reports (deleted cards
    /// are gone from the table). Only live cards count anywhere and appear in any list: every
    /// statement that reads, likes or answers a card says so with this (`live(as:)` for a card
    /// under another alias than `c`).
    static let live = Self.live(as: "c")

    /// `live` for the card under `alias`.
    static func live(as alias: String) -> String {
        "\(Self.unexpired(as: alias)) AND \(alias).hidden_at IS NULL"
    }

    /// Not expired, hidden or not: what the author may still open and delete.
    static let unexpired = Self.unexpired(as: "c")

    /// `unexpired` for the card under `alias`.
    static func unexpired(as alias: String) -> String {
        "(\(alias).expires_at IS NULL OR \(alias).expires_at > now())"
    }

    /// Whether `viewer` may open the card `c` on its own: visible to them, or their own card
    /// even when hidden (its author is told it was hidden and may look at it, or delete it).
    static func readable(by viewer: String) -> String {
        "\(Self.unexpired) AND (c.author_id = \(viewer) OR (c.hidden_at IS NULL AND \(Self.notBlockedNorReported(viewer))))"
    }

    /// Whether `viewer` may see the card `c`: it is live, neither its author nor the viewer
    /// blocked the other, and the viewer did not report it. Every read of cards filters with
    /// this — the one place a block or a report reaches all feeds, lists and details. For a viewer
    /// with any block or report, one probe of the `blocks` primary key per card (the pairs
    /// (viewer, author) and (author, viewer); a self-block cannot exist) and one of the `reports`
    /// primary key; for any other viewer, one check per statement (`notBlockedNorReported`).
    static func visible(to viewer: String) -> String {
        "\(Self.live) AND \(Self.notBlockedNorReported(viewer))"
    }

    /// `notBlocked` between the viewer and the card's author, and the viewer did not report the
    /// card `c` (contract: a reported card disappears from the reporter's own lists and its
    /// detail is `404` for them): probes of the `blocks` and `reports` primary keys, as one
    /// sub-select, so the planner prices one probe per row, not two (with two, it chose a bitmap
    /// scan and a sort of a tag's whole feed for a later page). `OFFSET 0` as in `notBlocked`.
    ///
    /// Only for a viewer who has any block (either way) or report at all (`hasBlocksOrReports`):
    /// most never have, and for them one check per statement replaces five index probes per card
    /// (the block pair probes `blocks_pkey` four times). A growing deployment's sessions probe the
    /// empty `blocks` index, which costs real pages, where an analysed copy scans the empty table
    /// for free: on the growing benchmark's 1M cards a latest page read 345 buffers against 145,
    /// and its statement took half as long again (0.42 against 0.28 ms of CPU). PostgreSQL
    /// evaluates `OR` in order and stops at the first true.
    static func notBlockedNorReported(_ viewer: String) -> String {
        """
        (NOT \(Self.hasBlocksOrReports(viewer)) OR NOT EXISTS (\
        SELECT 1 FROM blocks b WHERE b.blocker_id IN (\(viewer), c.author_id) AND b.blocked_id IN (\(viewer), c.author_id) \
        UNION ALL SELECT 1 FROM reports r WHERE r.card_id = c.id AND r.reporter_id = \(viewer) OFFSET 0))
        """
    }

    /// Whether `viewer` blocked anyone, was blocked by anyone or reported any card: an uncorrelated
    /// sub-select, so PostgreSQL evaluates it once per statement (an InitPlan), with one probe
    /// each of `blocks_list_idx`, `blocks_blocked_idx` and `reports_reporter_idx`.
    static func hasBlocksOrReports(_ viewer: String) -> String {
        """
        (SELECT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = \(viewer)) \
        OR EXISTS (SELECT 1 FROM blocks b WHERE b.blocked_id = \(viewer)) \
        OR EXISTS (SELECT 1 FROM reports r WHERE r.reporter_id = \(viewer)))
        """
    }

    /// Neither of the two accounts (SQL expressions) blocked the other.
    ///
    /// `OFFSET 0` keeps this a per-row probe (a filter on the rows the feed's index yields)
    /// instead of letting the planner turn it into an anti-join. Estimating an anti-join against
    /// an empty or tiny `blocks` table (every new site), it expected *no* card to survive, chose to
    /// read and sort the whole `cards` table, and a feed page of a 40,000-card site took 2.4 s
    /// instead of 0.25 ms.
    static func notBlocked(_ one: String, _ other: String) -> String {
        "NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id IN (\(one), \(other)) AND b.blocked_id IN (\(one), \(other)) OFFSET 0)"
    }

    /// The joins every card read needs, after `cards c`: the author `a`, and the viewer's like `l`
    /// (at most one row: the primary key is card and account). A join, not an `EXISTS` in the
    /// select list: PostgreSQL may turn that into a hashed subplan that reads all of the viewer's
    /// likes on every page, which grows with the viewer's history.
    static func joins(viewer: String) -> String {
        "JOIN accounts a ON a.id = c.author_id LEFT JOIN likes l ON l.card_id = c.id AND l.account_id = \(viewer)"
    }

    /// The columns `decode` reads, for `viewer`; `distance` is an SQL expression or nil.
    /// Needs `joins(viewer:)` in the FROM clause. `parent_deleted` probes the parent's primary
    /// key; `OFFSET 0` stops PostgreSQL from turning it into a hashed subplan that reads every
    /// live card once per page (it did so in generic plans whenever it expected many rows).
    static func select(viewer: String, distance: String? = nil) -> String {
        Self.columns(viewer: viewer, distance: distance)
    }

    /// `select` for cards as everyone sees them (kept and shared: `likedByMe`, `commentedByMe` and
    /// `isMine` false, no ballot), with `sharedJoins`: no probe for a viewer.
    static func sharedSelect(distance: String? = nil) -> String {
        Self.columns(viewer: nil, distance: distance)
    }

    /// The joins `sharedSelect` needs, after `cards c`: the author `a`.
    static let sharedJoins = "JOIN accounts a ON a.id = c.author_id"

    /// `select`'s columns; for no viewer, theirs are constants.
    private static func columns(viewer: String?, distance: String?) -> String {
        """
        c.id, c.content, c.font, c.background_kind, c.background_ref, c.tags, c.parent_id,
        (c.parent_id IS NOT NULL AND NOT EXISTS (
            SELECT 1 FROM cards p WHERE p.id = c.parent_id AND (p.expires_at IS NULL OR p.expires_at > now()) AND p.hidden_at IS NULL
            OFFSET 0)) AS parent_deleted,
        c.created_at, c.expires_at, c.like_count, c.comment_count, c.view_count,
        \(viewer == nil ? "false" : "l.account_id IS NOT NULL") AS liked_by_me,
        \(viewer.map(Self.commented(by:)) ?? "false") AS commented_by_me,
        \(viewer.map { "c.author_id = \($0)" } ?? "false") AS is_mine,
        a.id, a.nickname, a.profile_image_kind, a.profile_image_ref, a.is_operator,
        \(distance ?? "NULL::float8") AS distance,
        \(Self.poll(viewer: viewer)),
        \(Self.micros) AS micros
        """
    }

    /// A poll's columns (all NULL for a card without one), and the viewer's ballot on it: one probe
    /// of `poll_ballots_pkey`, only for a card with a poll (`OFFSET 0`, as for `parent_deleted`).
    static func poll(viewer: String?) -> String {
        let ballot =
            viewer.map {
                "CASE WHEN c.poll_options IS NOT NULL THEN (SELECT b.choices FROM poll_ballots b WHERE b.card_id = c.id AND b.account_id = \($0) OFFSET 0) END"
            } ?? "NULL::int2"
        return """
            c.poll_options, c.poll_multiple, c.poll_votes, c.poll_voters, c.poll_closes_at, c.poll_closes_at <= now() AS poll_closed,
            \(ballot) AS my_choices
            """
    }

    /// The poll from `poll(viewer:)`'s columns; nil for a card without one.
    static func decodePoll(_ cells: inout RowCells) throws -> Poll? {
        let options = try cells.next([String]?.self)
        let multiple = try cells.next(Bool?.self)
        let votes = try cells.next([Int32]?.self)
        let voters = try cells.next(Int32?.self)
        let closesAt = try cells.next(Date?.self)
        let closed = try cells.next(Bool?.self)
        let choices = try cells.next(Int16?.self)
        guard let options, let votes, options.count == votes.count else { return nil }
        return Poll(
            options: zip(options, votes).map { Poll.Option(text: $0, voteCount: Int($1)) }, multiple: multiple ?? false,
            voterCount: Int(voters ?? 0), myVotes: Ballot(bits: Int(choices ?? 0)), closesAt: closesAt, closed: closed ?? false)
    }

    /// Whether `viewer` answered the card `c` with a live comment card: one probe of
    /// `cards_commenter_idx` (`OFFSET 0`, as for `parent_deleted`).
    static func commented(by viewer: String) -> String {
        """
        EXISTS (SELECT 1 FROM cards m WHERE m.parent_id = c.id AND m.author_id = \(viewer) AND \(Self.live(as: "m")) OFFSET 0)
        """
    }

    /// The answered card's end as `ViewerMarks.commented` reads it: over the live comment cards `m`
    /// of one parent, the end of the latest story in microseconds, or `Int64.max` when one answer
    /// is not a story; NULL when there is none.
    static let commentedUntil = "max(\(Self.until(as: "m")))"

    /// The end of the card under `alias` in microseconds, `Int64.max` when it is not a story (as `commentedUntil`).
    static func until(as alias: String) -> String {
        "COALESCE((extract(epoch FROM \(alias).expires_at) * 1000000)::int8, 9223372036854775807)"
    }

    /// Parents and microseconds (`commentedUntil`, or `until` of each answer) as
    /// `ViewerMarks.commented`: a parent answered more than once keeps its latest end.
    static func commented(_ parents: [UUID], until micros: [Int64]) -> [UUID: Date] {
        Dictionary(zip(parents, micros), uniquingKeysWith: max).mapValues {
            $0 == .max ? Date.distantFuture : Date(timeIntervalSince1970: Double($0) / 1_000_000)
        }
    }

    /// Polls and the viewer's choices on them (as `poll_ballots` keeps them) as `ViewerMarks.ballots`.
    static func ballots(_ polls: [UUID], _ choices: [Int]) -> [UUID: Ballot] {
        Dictionary(zip(polls, choices.map(Ballot.init(bits:))), uniquingKeysWith: { first, _ in first })
    }

    /// The card `c`'s keyset position's microseconds since the epoch (`FeedPosition.createdAtMicros`).
    static let micros = "(extract(epoch FROM c.created_at) * 1000000)::int8"

    /// The columns of a card's position only: its ID and `micros` (`decodePosition`).
    static let position = "c.id, \(Self.micros)"

    /// A position from `position`'s columns.
    static func decodePosition(_ row: PostgresRow) throws -> FeedPosition {
        var cells = RowCells(row)
        let id = try cells.next(UUID.self)
        return FeedPosition(createdAtMicros: try cells.next(Int64.self), id: id)
    }

    /// A card and its position from `select`'s columns, decoded by type in their order (the
    /// columns after them, such as the shared page's `blocked`, are left for the caller).
    static func decode(_ row: PostgresRow) throws -> (card: Card, micros: Int64) {
        var cells = RowCells(row)
        return try Self.decode(&cells)
    }

    /// `decode(_:)` from `cells`, which are left at the first column after `select`'s.
    static func decode(_ cells: inout RowCells) throws -> (card: Card, micros: Int64) {
        let id = try cells.next(UUID.self)
        let content = try cells.next(String.self)
        let font = try cells.next(String.self)
        let backgroundKind = try cells.next(String.self)
        let backgroundRef = try cells.next(String.self)
        let tags = try cells.nextTextArray()
        let parentID = try cells.next(UUID?.self)
        let parentDeleted = try cells.next(Bool.self)
        let createdAt = try cells.next(Date.self)
        let expiresAt = try cells.next(Date?.self)
        let likeCount = try cells.next(Int.self)
        let commentCount = try cells.next(Int.self)
        let viewCount = try cells.next(Int.self)
        let likedByMe = try cells.next(Bool.self)
        let commentedByMe = try cells.next(Bool.self)
        let isMine = try cells.next(Bool.self)
        let authorID = try cells.next(UUID.self)
        let nickname = try cells.next(String.self)
        let authorImageKind = try cells.next(String?.self)
        let authorImageRef = try cells.next(String?.self)
        let authorIsOperator = try cells.next(Bool.self)
        let distance = try cells.next(Double?.self)
        let poll = try Self.decodePoll(&cells)
        let micros = try cells.next(Int64.self)
        let authorImage = AccountRow.image(kind: authorImageKind, reference: authorImageRef)
        let card = Card(
            id: id,
            content: content,
            font: CardFont(rawValue: font) ?? .default,
            background: AccountRow.image(kind: backgroundKind, reference: backgroundRef) ?? .builtIn(name: backgroundRef),
            tags: tags,
            author: UserSummary(id: authorID, nickname: nickname, profileImage: authorImage, isOperator: authorIsOperator),
            parentID: parentID,
            parentDeleted: parentDeleted,
            createdAt: createdAt,
            expiresAt: expiresAt,
            likeCount: likeCount,
            commentCount: commentCount,
            viewCount: viewCount,
            likedByMe: likedByMe,
            commentedByMe: commentedByMe,
            isMine: isMine,
            distanceMeters: distance,
            poll: poll
        )
        return (card, micros)
    }
}

/// A prepared statement whose rows are `CardRow.select`'s columns: a card and its keyset position.
protocol CardRowStatement: NamedStatement where Row == (card: Card, micros: Int64) {}

extension CardRowStatement {
    func decodeRow(_ row: PostgresRow) throws -> Row { try CardRow.decode(row) }
}

/// A prepared statement whose rows are `CardRow.position`'s columns: a card's keyset position only.
protocol PositionRowStatement: NamedStatement where Row == FeedPosition {}

extension PositionRowStatement {
    func decodeRow(_ row: PostgresRow) throws -> Row { try CardRow.decodePosition(row) }
}
