import Foundation
import SoomDomain

/// The contract's `Card`, every member present (`null` where empty).
struct CardBody: Encodable, Equatable {
    let card: Card

    enum CodingKeys: String, CodingKey {
        case id, content, font, background, tags, author, parentId, parentDeleted, createdAt, expiresAt, likeCount, commentCount,
            likedByMe, isMine, distanceMeters
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.card.id.uuidString.lowercased(), forKey: .id)
        try container.encode(self.card.content, forKey: .content)
        try container.encode(self.card.font.rawValue, forKey: .font)
        try container.encode(IdentityResponses.Image(reference: self.card.background), forKey: .background)
        try container.encode(self.card.tags, forKey: .tags)
        try container.encode(UserSummaryBody(user: self.card.author), forKey: .author)
        try container.encode(self.card.parentID?.uuidString.lowercased(), forKey: .parentId)
        try container.encode(self.card.parentDeleted, forKey: .parentDeleted)
        try container.encode(self.card.createdAt, forKey: .createdAt)
        try container.encode(self.card.expiresAt, forKey: .expiresAt)
        try container.encode(self.card.likeCount, forKey: .likeCount)
        try container.encode(self.card.commentCount, forKey: .commentCount)
        try container.encode(self.card.likedByMe, forKey: .likedByMe)
        try container.encode(self.card.isMine, forKey: .isMine)
        try container.encode(self.card.distanceMeters.map { ($0 * 10).rounded() / 10 }, forKey: .distanceMeters)
    }
}

/// The contract's `UserSummary` = `{"id","nickname","profileImage"}`.
struct UserSummaryBody: Encodable, Equatable {
    let user: UserSummary

    enum CodingKeys: String, CodingKey { case id, nickname, profileImage }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.user.id.uuidString.lowercased(), forKey: .id)
        try container.encode(self.user.nickname, forKey: .nickname)
        try container.encode(self.user.profileImage.map(IdentityResponses.Image.init), forKey: .profileImage)
    }
}

/// A list: `{"items": [...], "nextCursor": "…" | null}`.
struct ListBody<Item: Encodable & Equatable>: Encodable, Equatable {
    let items: [Item]
    let nextCursor: String?

    enum CodingKeys: String, CodingKey { case items, nextCursor }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.items, forKey: .items)
        try container.encode(self.nextCursor, forKey: .nextCursor)
    }
}

/// `{"liked","likeCount"}`.
struct LikeBody: Encodable, Equatable {
    let liked: Bool
    let likeCount: Int
}
