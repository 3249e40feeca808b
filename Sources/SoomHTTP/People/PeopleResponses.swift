import Foundation
import SoomDomain

/// The contract's `Profile`: `UserSummary` + `bio`, the three counts and the viewer's four flags.
struct ProfileBody: JSONWritable, Equatable {
    let profile: Profile

    func write(to writer: inout JSONWriter) {
        let profile = self.profile
        writer.beginObject()
        UserSummaryBody.writeMembers(of: profile.user, to: &writer)
        writer.member("bio", profile.bio)
        writer.member("cardCount", profile.cardCount)
        writer.member("followerCount", profile.followerCount)
        writer.member("followingCount", profile.followingCount)
        writer.member("isFollowing", profile.isFollowing)
        writer.member("isFollowedBy", profile.isFollowedBy)
        writer.member("isBlocked", profile.isBlocked)
        writer.member("isMe", profile.isMe)
        writer.member("visitCount", profile.visitCount)
        writer.member("visitsToday", profile.visitsToday)
        writer.endObject()
    }
}

/// `{"following","followerCount"}`.
struct FollowBody: JSONWritable, Equatable {
    let following: Bool
    let followerCount: Int

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("following", self.following)
        writer.member("followerCount", self.followerCount)
        writer.endObject()
    }
}

/// `{"blocked"}`.
struct BlockBody: JSONWritable, Equatable {
    let blocked: Bool

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("blocked", self.blocked)
        writer.endObject()
    }
}
