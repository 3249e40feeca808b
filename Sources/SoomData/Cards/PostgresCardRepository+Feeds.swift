import Foundation
import PostgresNIO
import SoomDomain

extension PostgresCardRepository {
    /// The feed's source: one type per way a page is found (`SoomData/Feeds`).
    public func source(for feed: Feed) -> any FeedSource {
        switch feed {
        case .latest: LatestFeed(database: self.database)
        case .tag(let tag): TagFeed(database: self.database, tag: tag)
        case .following: FollowingFeed(database: self.database)
        case .author(let author): AuthorFeed(database: self.database, author: author)
        case .popular: PopularFeed(database: self.database)
        case .comments(let parent): CommentsFeed(database: self.database, parent: parent)
        case .commentsBy(let author): CommentsByFeed(database: self.database, author: author)
        case .nearby(let location, let radius): NearbyFeed(database: self.database, location: location, radius: radius)
        }
    }

    public func sharedCards(_ ids: [UUID]) async throws -> [Card] {
        guard !ids.isEmpty else { return [] }
        return try await self.database.rows(CardStatements.Shared(ids: ids)).map(\.card)
    }

    public func viewerMarks(of viewer: UUID, cards: [UUID], authors: [UUID]) async throws -> ViewerMarks {
        // One row always (an aggregate); none would be a broken statement, and is read as guarded.
        try await self.database.rows(CardStatements.ViewerMarks(viewer: viewer, cards: cards, authors: authors)).first
            ?? ViewerMarks(liked: [:], blocked: false, guarded: true)
    }

    public func likeBook(of viewer: UUID, limit: Int) async throws -> ViewerMarks? {
        // One row always (an aggregate); none would be a broken statement, and is read as guarded.
        guard let book = try await self.database.rows(CardStatements.LikeBook(viewer: viewer, limit: limit + 1)).first else {
            return ViewerMarks(liked: [:], blocked: false, guarded: true)
        }
        return book.count > limit
            ? nil : ViewerMarks(liked: book.liked, commented: book.commented, ballots: book.ballots, blocked: false, guarded: book.guarded)
    }
}
