import Foundation
import PostgresNIO
import SoomDomain

extension PostgresCardRepository {
    /// The following feed: fan-out on read, one round trip, a prepared statement. How a page is
    /// found (per-author probes for a few follows, a window of the latest feed for many) is
    /// described at `FollowingStatements`.
    func followingPage(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage {
        let rows =
            if let position {
                try await self.database.rows(FollowingStatements.After(viewer: viewer, position: position, limit: limit + 1))
            } else {
                try await self.database.rows(FollowingStatements.First(viewer: viewer, limit: limit + 1))
            }
        return Self.page(rows, limit: limit)
    }
}
