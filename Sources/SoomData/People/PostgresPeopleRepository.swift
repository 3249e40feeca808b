import Foundation
import PostgresNIO
import SoomDomain

/// `PeopleRepository` on PostgreSQL. Follows and blocks are the functions `set_follow` and
/// `set_block` of `sql/0005_people.sql` (`set_follow` as 0013 redefines it, with the following
/// inbox): one round trip, one transaction each, locking both accounts in id order. Reads are one
/// statement (a second only to tell an empty list from a missing or hidden account).
public struct PostgresPeopleRepository: PeopleRepository {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    public func profile(of id: UUID, viewer: UUID) async throws -> Profile? {
        var builder = SQLBuilder()
        let viewerParameter = builder.bind(viewer)
        builder.append(
            """
            SELECT \(ProfileRow.select(viewer: viewerParameter)) FROM accounts a
            WHERE a.id = \(builder.bind(id)) AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = a.id AND b.blocked_id = \(viewerParameter))
            """)
        return try await self.database.rows(builder.query).first.map(ProfileRow.decode)
    }

    public func setFollow(_ following: Bool, target: UUID, by viewer: UUID, at time: Date) async throws -> FollowOutcome {
        let rows = try await self.database.rows(
            "SELECT outcome, target_followers FROM set_follow(\(viewer), \(target), \(following), \(time), \(FollowingStatements.wideFollowing)::int)"
        )
        let (outcome, count) = try rows[0].decode((String, Int?).self)
        switch outcome {
        case "done": return .done(following: following, followerCount: count ?? 0)
        case "blocked": return .blockedByViewer
        default: return .notFound
        }
    }

    public func setBlock(_ blocked: Bool, target: UUID, by viewer: UUID, at time: Date) async throws -> Bool {
        let rows = try await self.database.rows("SELECT set_block(\(viewer), \(target), \(blocked), \(time))")
        return try rows[0].decode(String.self) == "done"
    }

    public func page(of list: PeopleList, after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> ListPage<Profile>? {
        let (subject, listedColumn, subjectColumn) =
            switch list {
            case .followers(let id): (id, "follower_id", "followee_id")
            case .following(let id): (id, "followee_id", "follower_id")
            }
        var builder = SQLBuilder()
        let viewerParameter = builder.bind(viewer)
        let subjectParameter = builder.bind(subject)
        let subjectVisible =
            "EXISTS (SELECT 1 FROM accounts s WHERE s.id = \(subjectParameter) AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = s.id AND b.blocked_id = \(viewerParameter)))"
        var conditions = ["f.\(subjectColumn) = \(subjectParameter)", subjectVisible, CardRow.notBlocked(viewerParameter, "a.id")]
        if let position { conditions.append(ProfileRow.after(position, time: "f.created_at", id: "f.\(listedColumn)", &builder)) }
        builder.append(
            """
            SELECT \(ProfileRow.select(viewer: viewerParameter)), \(ProfileRow.micros("f.created_at")) AS micros
            FROM follows f JOIN accounts a ON a.id = f.\(listedColumn)
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY f.created_at DESC, f.\(listedColumn) DESC LIMIT \(builder.bind(limit + 1))
            """)
        let rows = try await self.database.rows(builder.query).map { row in
            let profile = try ProfileRow.decode(row)
            let micros = try row.makeRandomAccess()["micros"].decode(Int64.self)
            return (item: profile, position: FeedPosition(createdAtMicros: micros, id: profile.user.id))
        }
        if rows.isEmpty {
            var check = SQLBuilder()
            let viewerParameter = check.bind(viewer)
            check.append(
                "SELECT 1 FROM accounts s WHERE s.id = \(check.bind(subject)) AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = s.id AND b.blocked_id = \(viewerParameter))"
            )
            if try await self.database.rows(check.query).isEmpty { return nil }
        }
        return ListPage(rows: rows, limit: limit)
    }

    public func blocks(of viewer: UUID, after position: FeedPosition?, limit: Int) async throws -> ListPage<UserSummary> {
        var builder = SQLBuilder()
        var conditions = ["b.blocker_id = \(builder.bind(viewer))"]
        if let position { conditions.append(ProfileRow.after(position, time: "b.created_at", id: "b.blocked_id", &builder)) }
        builder.append(
            """
            SELECT a.id, a.nickname, a.profile_image_kind, a.profile_image_ref, \(ProfileRow.micros("b.created_at"))
            FROM blocks b JOIN accounts a ON a.id = b.blocked_id
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY b.created_at DESC, b.blocked_id DESC LIMIT \(builder.bind(limit + 1))
            """)
        let rows = try await self.database.rows(builder.query).map { row in
            let (id, nickname, imageKind, imageRef, micros) = try row.decode((UUID, String, String?, String?, Int64).self)
            return (
                item: ProfileRow.user(id: id, nickname: nickname, imageKind: imageKind, imageRef: imageRef),
                position: FeedPosition(createdAtMicros: micros, id: id)
            )
        }
        return ListPage(rows: rows, limit: limit)
    }
}
