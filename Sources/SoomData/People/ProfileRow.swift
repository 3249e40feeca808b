import Foundation
import PostgresNIO
import SoomDomain

/// How a `Profile` is read: the account `a` and the viewer's relations to it, in one select list.
enum ProfileRow {
    /// The columns `decode` reads, for the viewer `v.id`: four primary-key probes. A query binds
    /// the viewer once, as a one-row table (`FROM (SELECT \(viewer)::uuid AS id) v, …`), which
    /// PostgreSQL folds away: the plan is the one with the value written in.
    static let select = """
        a.id, a.nickname, a.profile_image_kind, a.profile_image_ref, a.is_operator, a.bio, a.card_count, a.follower_count, a.following_count,
        EXISTS (SELECT 1 FROM follows x WHERE x.follower_id = v.id AND x.followee_id = a.id) AS is_following,
        EXISTS (SELECT 1 FROM follows x WHERE x.follower_id = a.id AND x.followee_id = v.id) AS is_followed_by,
        EXISTS (SELECT 1 FROM blocks x WHERE x.blocker_id = v.id AND x.blocked_id = a.id) AS is_blocked,
        a.id = v.id AS is_me,
        a.visit_count, CASE WHEN a.visits_day = (now() AT TIME ZONE 'UTC')::date THEN a.visits_today ELSE 0 END AS visits_today
        """

    /// A profile from the next cells, `select`'s columns (a cell after them is left for the caller).
    static func decode(_ cells: inout RowCells) throws -> Profile {
        Profile(
            user: try Self.user(&cells),
            bio: try cells.next(String.self),
            cardCount: try cells.next(Int.self),
            followerCount: try cells.next(Int.self),
            followingCount: try cells.next(Int.self),
            isFollowing: try cells.next(Bool.self),
            isFollowedBy: try cells.next(Bool.self),
            isBlocked: try cells.next(Bool.self),
            isMe: try cells.next(Bool.self),
            visitCount: try cells.next(Int.self),
            visitsToday: try cells.next(Int.self))
    }

    /// The columns `user` reads, of the account `a`.
    static let userColumns = "a.id, a.nickname, a.profile_image_kind, a.profile_image_ref, a.is_operator"

    /// A `UserSummary` from the next cells: an account's ID, nickname, profile image kind and
    /// reference, and whether it is the operator (`userColumns`).
    static func user(_ cells: inout RowCells) throws -> UserSummary {
        Self.user(
            id: try cells.next(UUID.self), nickname: try cells.next(String.self), imageKind: try cells.next(String?.self),
            imageRef: try cells.next(String?.self), isOperator: try cells.next(Bool.self))
    }

    /// `time` (an SQL timestamptz) as whole microseconds since 1970, exactly.
    static func micros(_ time: String) -> String {
        "(extract(epoch FROM \(time)) * 1000000)::int8"
    }

    /// A `UserSummary` from an account's id, nickname and profile image kind and reference.
    static func user(id: UUID, nickname: String, imageKind: String?, imageRef: String?, isOperator: Bool = false) -> UserSummary {
        UserSummary(id: id, nickname: nickname, profileImage: AccountRow.image(kind: imageKind, reference: imageRef), isOperator: isOperator)
    }
}
