import Foundation
import PostgresNIO
import SoomDomain

/// How an account is read from the `accounts` table: one column list, one decoder.
enum AccountRow {
    /// The columns `decode` reads, in order, of the account `a`. A restriction that has ended
    /// reads as none.
    static let select = """
        a.id, a.nickname, a.profile_image_kind, a.profile_image_ref, a.bio, a.created_at, a.card_count, a.follower_count, a.following_count,
        CASE WHEN a.restricted_until > now() THEN a.restricted_until END AS restricted_until
        """

    /// An account from a row of `select`'s columns.
    static func decode(_ row: PostgresRow) throws -> Account {
        var cells = RowCells(row)
        return try Self.decode(&cells)
    }

    /// An account from the next cells, `select`'s columns (cells after them are left for the caller).
    static func decode(_ cells: inout RowCells) throws -> Account {
        Account(
            id: try cells.next(UUID.self),
            nickname: try cells.next(String.self),
            profileImage: Self.image(kind: try cells.next(String?.self), reference: try cells.next(String?.self)),
            bio: try cells.next(String.self),
            createdAt: try cells.next(Date.self),
            cardCount: try cells.next(Int.self),
            followerCount: try cells.next(Int.self),
            followingCount: try cells.next(Int.self),
            restrictedUntil: try cells.next(Date?.self)
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
