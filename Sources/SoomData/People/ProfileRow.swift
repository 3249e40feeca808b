import Foundation
import PostgresNIO
import SoomDomain

/// How a `Profile` is read: the account `a` and the viewer's relations to it, in one select list.
enum ProfileRow {
    /// The columns `decode` reads, for `viewer` (an SQL expression): four primary-key probes.
    static func select(viewer: String) -> String {
        """
        a.id, a.nickname, a.profile_image_kind, a.profile_image_ref, a.bio, a.card_count, a.follower_count, a.following_count,
        EXISTS (SELECT 1 FROM follows x WHERE x.follower_id = \(viewer) AND x.followee_id = a.id) AS is_following,
        EXISTS (SELECT 1 FROM follows x WHERE x.follower_id = a.id AND x.followee_id = \(viewer)) AS is_followed_by,
        EXISTS (SELECT 1 FROM blocks x WHERE x.blocker_id = \(viewer) AND x.blocked_id = a.id) AS is_blocked,
        a.id = \(viewer) AS is_me
        """
    }

    static let columnCount = 12

    static func decode(_ row: PostgresRow) throws -> Profile {
        let cells = row.makeRandomAccess()
        return Profile(
            user: try Self.user(cells, at: 0),
            bio: try cells[4].decode(String.self),
            cardCount: try cells[5].decode(Int.self),
            followerCount: try cells[6].decode(Int.self),
            followingCount: try cells[7].decode(Int.self),
            isFollowing: try cells[8].decode(Bool.self),
            isFollowedBy: try cells[9].decode(Bool.self),
            isBlocked: try cells[10].decode(Bool.self),
            isMe: try cells[11].decode(Bool.self))
    }

    /// A `UserSummary` from four cells: id, nickname, profile image kind and reference.
    static func user(_ cells: PostgresRandomAccessRow, at offset: Int) throws -> UserSummary {
        UserSummary(
            id: try cells[offset].decode(UUID.self),
            nickname: try cells[offset + 1].decode(String.self),
            profileImage: AccountRow.image(kind: try cells[offset + 2].decode(String?.self), reference: try cells[offset + 3].decode(String?.self)))
    }

    /// A keyset position from microseconds since 1970 and an id.
    static func position(_ cells: PostgresRandomAccessRow, micros: Int, id: Int) throws -> FeedPosition {
        FeedPosition(createdAtMicros: try cells[micros].decode(Int64.self), id: try cells[id].decode(UUID.self))
    }

    /// `time` (an SQL timestamptz) as whole microseconds since 1970, exactly.
    static func micros(_ time: String) -> String {
        "(extract(epoch FROM \(time)) * 1000000)::int8"
    }

    /// The keyset condition "strictly older than this position" on `(time, id)`.
    static func after(_ position: FeedPosition, time: String, id: String, _ builder: inout SQLBuilder) -> String {
        let micros = builder.bind(position.createdAtMicros)
        let idParameter = builder.bind(position.id)
        return "(\(time), \(id)) < (timestamptz 'epoch' + \(micros)::int8 * interval '1 microsecond', \(idParameter))"
    }
}
