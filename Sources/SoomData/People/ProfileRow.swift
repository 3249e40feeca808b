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

    /// A profile from `select`'s columns, decoded by type in their order (a column after them is
    /// left for the caller).
    static func decode(_ row: PostgresRow) throws -> Profile {
        let (id, nickname, imageKind, imageRef, bio, cardCount, followerCount, followingCount, isFollowing, isFollowedBy, isBlocked, isMe) =
            try row.decode((UUID, String, String?, String?, String, Int, Int, Int, Bool, Bool, Bool, Bool).self)
        return Profile(
            user: Self.user(id: id, nickname: nickname, imageKind: imageKind, imageRef: imageRef),
            bio: bio,
            cardCount: cardCount,
            followerCount: followerCount,
            followingCount: followingCount,
            isFollowing: isFollowing,
            isFollowedBy: isFollowedBy,
            isBlocked: isBlocked,
            isMe: isMe)
    }

    /// A `UserSummary` from an account's id, nickname and profile image kind and reference.
    static func user(id: UUID, nickname: String, imageKind: String?, imageRef: String?) -> UserSummary {
        UserSummary(id: id, nickname: nickname, profileImage: AccountRow.image(kind: imageKind, reference: imageRef))
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
