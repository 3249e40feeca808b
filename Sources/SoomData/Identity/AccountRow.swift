import Foundation
import PostgresNIO
import SoomDomain

/// How an account is read from the `accounts` table: one column list, one decoder.
enum AccountRow {
    /// The columns `decode` expects, in order, qualified with `alias`. A restriction that has
    /// ended reads as none.
    static func columns(_ alias: String) -> String {
        ([
            "id", "nickname", "profile_image_kind", "profile_image_ref", "bio", "created_at", "card_count", "follower_count",
            "following_count",
        ].map { "\(alias).\($0)" }
            + ["CASE WHEN \(alias).restricted_until > now() THEN \(alias).restricted_until END AS restricted_until"]).joined(separator: ", ")
    }

    /// An account from `columns`, decoded by type in their order (columns after them are left
    /// for the caller, by name).
    static func decode(_ row: PostgresRow) throws -> Account {
        let (id, nickname, imageKind, imageRef, bio, createdAt, cardCount, followerCount, followingCount, restrictedUntil) =
            try row.decode((UUID, String, String?, String?, String, Date, Int, Int, Int, Date?).self)
        return Account(
            id: id,
            nickname: nickname,
            profileImage: Self.image(kind: imageKind, reference: imageRef),
            bio: bio,
            createdAt: createdAt,
            cardCount: cardCount,
            followerCount: followerCount,
            followingCount: followingCount,
            restrictedUntil: restrictedUntil
        )
    }

    static func image(kind: String?, reference: String?) -> ImageReference? {
        switch (kind, reference) {
        case ("default", let name?): .builtIn(name: name)
        case ("upload", let id?): .upload(id: id)
        default: nil
        }
    }

    /// The stored `(kind, reference)` pair of an image.
    static func columns(of image: ImageReference?) -> (kind: String?, reference: String?) {
        switch image {
        case nil: (nil, nil)
        case .builtIn(let name): ("default", name)
        case .upload(let id): ("upload", id)
        }
    }
}
