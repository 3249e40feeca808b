import Foundation
import SoomDomain

/// The contract's `Profile`: `UserSummary` + `bio`, the three counts and the viewer's four flags.
struct ProfileBody: JSONWritable, Equatable {
    let profile: Profile

    func write(to writer: inout JSONWriter) {
        let profile = self.profile
        writer.beginObject()
        UserSummaryBody.writeMembers(of: profile.user, to: &writer)
        writer.key("bio")
        writer.string(profile.bio)
        writer.key("cardCount")
        writer.int(profile.cardCount)
        writer.key("followerCount")
        writer.int(profile.followerCount)
        writer.key("followingCount")
        writer.int(profile.followingCount)
        writer.key("isFollowing")
        writer.bool(profile.isFollowing)
        writer.key("isFollowedBy")
        writer.bool(profile.isFollowedBy)
        writer.key("isBlocked")
        writer.bool(profile.isBlocked)
        writer.key("isMe")
        writer.bool(profile.isMe)
        writer.endObject()
    }
}

/// `{"following","followerCount"}`.
struct FollowBody: JSONWritable, Equatable {
    let following: Bool
    let followerCount: Int

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("following")
        writer.bool(self.following)
        writer.key("followerCount")
        writer.int(self.followerCount)
        writer.endObject()
    }
}

/// `{"blocked"}`.
struct BlockBody: JSONWritable, Equatable {
    let blocked: Bool

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("blocked")
        writer.bool(self.blocked)
        writer.endObject()
    }
}
