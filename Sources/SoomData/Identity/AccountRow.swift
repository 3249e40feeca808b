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

    static let columnCount = 10

    /// Decodes the account columns starting at `offset`.
    static func decode(_ row: PostgresRow, offset: Int = 0) throws -> Account {
        let cells = row.makeRandomAccess()
        let imageKind = try cells[offset + 2].decode(String?.self)
        let imageRef = try cells[offset + 3].decode(String?.self)
        return Account(
            id: try cells[offset].decode(UUID.self),
            nickname: try cells[offset + 1].decode(String.self),
            profileImage: Self.image(kind: imageKind, reference: imageRef),
            bio: try cells[offset + 4].decode(String.self),
            createdAt: try cells[offset + 5].decode(Date.self),
            cardCount: try cells[offset + 6].decode(Int.self),
            followerCount: try cells[offset + 7].decode(Int.self),
            followingCount: try cells[offset + 8].decode(Int.self),
            restrictedUntil: try cells[offset + 9].decode(Date?.self)
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
