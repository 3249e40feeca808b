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
        let rows = try await self.database.rows(
            """
            SELECT \(unescaped: ProfileRow.select) FROM (SELECT \(viewer)::uuid AS id) v, accounts a
            WHERE a.id = \(id) AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = a.id AND b.blocked_id = v.id)
            """)
        return try rows.first.map { row in
            var cells = RowCells(row)
            return try ProfileRow.decode(&cells)
        }
    }

    public func setFollow(_ following: Bool, target: UUID, by viewer: UUID, at time: Date) async throws -> FollowOutcome {
        let rows = try await self.database.rows(
            "SELECT outcome, target_followers FROM set_follow(\(viewer), \(target), \(following), \(time), \(FollowingStatements.wideFollowing)::int)"
        )
        let (outcome, count) = try RowCells.decode(rows[0], String.self, Int?.self)
        switch outcome {
        case "done": return .done(following: following, followerCount: count ?? 0)
        case "blocked": return .blockedByViewer
        default: return .notFound
        }
    }

    public func setBlock(_ blocked: Bool, target: UUID, by viewer: UUID, at time: Date) async throws -> Bool {
        let rows = try await self.database.rows("SELECT set_block(\(viewer), \(target), \(blocked), \(time))")
        return try RowCells.decode(rows[0], String.self) == "done"
    }

    public func page(of list: PeopleList, after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> ListPage<Profile>? {
        let (subject, listed, other) =
            switch list {
            case .followers(let id): (id, Self.followerColumn, Self.followeeColumn)
            case .following(let id): (id, Self.followeeColumn, Self.followerColumn)
            }
        let rows = try await self.database.rows(
            """
            SELECT \(unescaped: ProfileRow.select), \(unescaped: ProfileRow.micros("f.created_at"))
            FROM (SELECT \(viewer)::uuid AS id) v, follows f JOIN accounts a ON a.id = f.\(unescaped: listed)
            WHERE f.\(unescaped: other) = \(subject)
              AND EXISTS (SELECT 1 FROM accounts s WHERE s.id = \(subject)
                          AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = s.id AND b.blocked_id = v.id))
              AND \(unescaped: CardRow.notBlocked("v.id", "a.id"))
              AND (f.created_at, f.\(unescaped: listed)) < \(position: position ?? .top)
            ORDER BY f.created_at DESC, f.\(unescaped: listed) DESC LIMIT \(limit + 1)
            """
        ).map { row in
            var cells = RowCells(row)
            let profile = try ProfileRow.decode(&cells)
            return (item: profile, position: FeedPosition(createdAtMicros: try cells.next(Int64.self), id: profile.user.id))
        }
        if rows.isEmpty {
            let subjectVisible = try await self.database.rows(
                """
                SELECT 1 FROM accounts s WHERE s.id = \(subject)
                AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = s.id AND b.blocked_id = \(viewer))
                """)
            if subjectVisible.isEmpty { return nil }
        }
        return ListPage(rows: rows, limit: limit)
    }

    /// The columns of `follows` a list reads by: who follows, and whom.
    private static let followerColumn = "follower_id"
    private static let followeeColumn = "followee_id"

    public func blocks(of viewer: UUID, after position: FeedPosition?, limit: Int) async throws -> ListPage<UserSummary> {
        let rows = try await self.database.rows(
            """
            SELECT \(unescaped: ProfileRow.userColumns), \(unescaped: ProfileRow.micros("b.created_at"))
            FROM blocks b JOIN accounts a ON a.id = b.blocked_id
            WHERE b.blocker_id = \(viewer) AND (b.created_at, b.blocked_id) < \(position: position ?? .top)
            ORDER BY b.created_at DESC, b.blocked_id DESC LIMIT \(limit + 1)
            """
        ).map { row in
            var cells = RowCells(row)
            let user = try ProfileRow.user(&cells)
            return (item: user, position: FeedPosition(createdAtMicros: try cells.next(Int64.self), id: user.id))
        }
        return ListPage(rows: rows, limit: limit)
    }
}
