import Foundation

/// What the people use cases work with.
public struct PeopleEnvironment: Sendable {
    /// The repository, wrapped in what its writes invalidate (`InvalidatingPeopleRepository`).
    public let people: any PeopleRepository
    /// Where profile visits are noted (`ViewFlushJob` writes them).
    public let views: ViewLog
    public let now: @Sendable () -> Date

    public init(
        people: any PeopleRepository, viewerMarks: ViewerMarkCache = ViewerMarkCache(lifetime: 0),
        feedPages: FeedPageCache = FeedPageCache(lifetime: 0), views: ViewLog = ViewLog(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.people = InvalidatingPeopleRepository(base: people, feedPages: feedPages, viewerMarks: viewerMarks)
        self.views = views
        self.now = now
    }
}
