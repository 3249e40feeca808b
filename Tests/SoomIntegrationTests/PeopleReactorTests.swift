import Foundation
import Hummingbird
import SoomDomain
import Testing

@testable import SoomHTTP

/// The people and notification reactors' reducers and responses: pure, no database.
@Suite("People and notification reducers")
struct PeopleReactorTests {
    static let user = UserSummary(id: UUID(), nickname: "하늘", profileImage: .builtIn(name: "sky-dawn"))
    static let profile = Profile(
        user: user, bio: "소개", cardCount: 2, followerCount: 3, followingCount: 4, isFollowing: true, isFollowedBy: false, isBlocked: false,
        isMe: false)

    /// A body that writes itself, parsed back.
    static func object(_ body: some JSONWritable) throws -> [String: Any] {
        var writer = JSONWriter()
        body.write(to: &writer)
        return try #require(try JSONWriterTests.parse(writer) as? [String: Any])
    }

    @Test("PeopleReactor: each mutation becomes its state, and the profile JSON has exactly the contract's members")
    func peopleReactor() throws {
        #expect(
            PeopleReactor.reduce(state: .error(SoomError.accountNotVisible.apiError), mutation: .profileLoaded(Self.profile))
                == .profile(Self.profile))
        #expect(
            PeopleReactor.reduce(state: .error(SoomError.accountNotVisible.apiError), mutation: .followChanged(following: true, followerCount: 7))
                == .follow(following: true, followerCount: 7))
        #expect(PeopleReactor.reduce(state: .profile(Self.profile), mutation: .blockChanged(true)) == .block(true))
        let profile = try Self.object(ProfileBody(profile: Self.profile))
        #expect(
            Set(profile.keys) == [
                "id", "nickname", "profileImage", "bio", "cardCount", "followerCount", "followingCount",
                "isFollowing", "isFollowedBy", "isBlocked", "isMe",
            ])
        #expect(profile["followingCount"] as? Int == 4 && profile["isFollowing"] as? Bool == true && profile["bio"] as? String == "소개")
        #expect(try PeopleReactor.State.profile(Self.profile).response().status == .ok)
        let encoded = try JSON.encoder.encode(FollowBody(following: false, followerCount: 0))
        let follow = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(follow["following"] as? Bool == false && follow["followerCount"] as? Int == 0 && follow.count == 2)
        #expect(try PeopleReactor.State.error(SoomError.accountNotVisible.apiError).response().status == .notFound)
    }

    @Test("PeopleListReactor and NotificationReactor: pages become states, marking read is 204")
    func listReactors() throws {
        #expect(
            PeopleListReactor.reduce(state: .profiles([], nextCursor: nil), mutation: .profilesLoaded([Self.profile], nextCursor: "c"))
                == .profiles([Self.profile], nextCursor: "c"))
        #expect(
            PeopleListReactor.reduce(state: .blocks([], nextCursor: nil), mutation: .blocksLoaded([Self.user], nextCursor: nil))
                == .blocks([Self.user], nextCursor: nil))
        let blocks = try Self.object(ListBody(items: [UserSummaryBody(user: Self.user)], nextCursor: nil))
        #expect(blocks["nextCursor"] is NSNull && (blocks["items"] as? [[String: Any]])?.first?.count == 3)

        let notification = AccountNotification(
            id: UUID(), type: .favoriteTagUsed, createdAt: Date(timeIntervalSince1970: 1_800_000_000.123), read: false, actor: Self.user,
            cardID: UUID(), tag: "하늘", until: nil)
        #expect(
            NotificationReactor.reduce(state: .page([], nextCursor: nil), mutation: .loaded([notification], nextCursor: nil))
                == .page([notification], nextCursor: nil))
        #expect(NotificationReactor.reduce(state: .done, mutation: .markedRead(notification.id)) == .done)
        #expect(try NotificationReactor.State.done.response().status == .noContent)
        let page = try Self.object(ListBody(items: [NotificationBody(notification: notification)], nextCursor: "n"))
        let item = try #require((page["items"] as? [[String: Any]])?.first)
        #expect(Set(item.keys) == ["id", "type", "createdAt", "read", "actor", "cardId", "tag", "until"])
        #expect(item["type"] as? String == "favorite_tag_used" && item["tag"] as? String == "하늘" && item["until"] is NSNull)
        #expect(item["createdAt"] as? String == "2027-01-15T08:00:00.123Z")
        #expect(page["nextCursor"] as? String == "n")
    }
}
