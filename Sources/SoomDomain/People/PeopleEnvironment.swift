import Foundation

/// What the people use cases work with.
public struct PeopleEnvironment: Sendable {
    public let people: any PeopleRepository
    public let now: @Sendable () -> Date

    public init(people: any PeopleRepository, now: @escaping @Sendable () -> Date = { Date() }) {
        self.people = people
        self.now = now
    }
}
