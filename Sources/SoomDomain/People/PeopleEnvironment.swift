import Foundation

/// What the people use cases work with.
public struct PeopleEnvironment: Sendable {
    public let people: any PeopleRepository
    /// Viewers' kept marks; a block made or undone invalidates both accounts'. Off unless given.
    public let viewerMarks: ViewerMarkCache
    /// Kept feed positions; a follow, an unfollow or a block invalidates the accounts' own. Off unless given.
    public let feedPages: FeedPageCache
    public let now: @Sendable () -> Date

    public init(
        people: any PeopleRepository, viewerMarks: ViewerMarkCache = ViewerMarkCache(lifetime: 0),
        feedPages: FeedPageCache = FeedPageCache(lifetime: 0), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.people = people
        self.viewerMarks = viewerMarks
        self.feedPages = feedPages
        self.now = now
    }
}
