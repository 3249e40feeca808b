import Foundation

/// What the people use cases work with.
public struct PeopleEnvironment: Sendable {
    public let people: any PeopleRepository
    /// Viewers' kept marks; a block made or undone invalidates both accounts'. Off unless given.
    public let viewerMarks: ViewerMarkCache
    public let now: @Sendable () -> Date

    public init(
        people: any PeopleRepository, viewerMarks: ViewerMarkCache = ViewerMarkCache(lifetime: 0), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.people = people
        self.viewerMarks = viewerMarks
        self.now = now
    }
}
