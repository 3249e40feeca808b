import Foundation
import SoomDomain
import Synchronization
import Testing

@Suite("People use cases with an in-memory repository")
struct PeopleUseCaseTests {
    let me = UUID()
    let them = UUID()
    let repository: InMemoryPeopleRepository
    let environment: PeopleEnvironment

    init() {
        let ticks = Mutex(0)
        self.repository = InMemoryPeopleRepository(accounts: [self.me, self.them])
        self.environment = PeopleEnvironment(people: self.repository) {
            Date(
                timeIntervalSince1970: 1_800_000_000
                    + Double(
                        ticks.withLock {
                            $0 += 1
                            return $0
                        }))
        }
    }

    @Test("following oneself is 422 on id and never reaches the repository")
    func selfFollow() async throws {
        await #expect(throws: SoomError.validationFailed(field: "id", "You cannot follow yourself.")) {
            try await FollowAccount(self.environment)(true, target: self.me, by: self.me)
        }
        await #expect(throws: SoomError.validationFailed(field: "id", "You cannot block yourself.")) {
            try await BlockAccount(self.environment)(true, target: self.me, by: self.me)
        }
        #expect(self.repository.calls == 0)
    }

    @Test("follow outcomes map to the contract: done, 404 when they blocked me or are unknown, 403 blocked when I blocked them")
    func followOutcomes() async throws {
        let done = try await FollowAccount(self.environment)(true, target: self.them, by: self.me)
        #expect(done.following && done.followerCount == 1)
        #expect(try await ShowProfile(self.environment)(self.them, viewer: self.me).isFollowing)
        await #expect(throws: SoomError.accountNotVisible) { try await FollowAccount(self.environment)(true, target: UUID(), by: self.me) }
        #expect(try await BlockAccount(self.environment)(true, target: self.them, by: self.me))
        await #expect(throws: SoomError.blockedByCaller) { try await FollowAccount(self.environment)(true, target: self.them, by: self.me) }
        await #expect(throws: SoomError.accountNotVisible) { try await FollowAccount(self.environment)(true, target: self.me, by: self.them) }
        await #expect(throws: SoomError.accountNotVisible) { try await ShowProfile(self.environment)(self.me, viewer: self.them) }
        #expect(try await ShowProfile(self.environment)(self.them, viewer: self.me).isBlocked)
        await #expect(throws: SoomError.accountNotVisible) { try await BlockAccount(self.environment)(true, target: UUID(), by: self.me) }
    }

    @Test("list cursors round-trip within their list and are refused by another list")
    func listCursors() async throws {
        let others = (0..<5).map { _ in UUID() }
        let repository = InMemoryPeopleRepository(accounts: others + [self.me])
        let clock = Mutex(0.0)
        let environment = PeopleEnvironment(people: repository) {
            Date(
                timeIntervalSince1970: clock.withLock {
                    $0 += 1
                    return $0
                })
        }
        for other in others { _ = try await FollowAccount(environment)(true, target: self.me, by: other) }
        var seen: [UUID] = []
        var cursor: String?
        repeat {
            let page = try await ListPeople(environment)(.followers(of: self.me), page: try PageRequest(limit: 2, cursor: cursor), viewer: self.me)
            seen += page.items.map(\.user.id)
            cursor = page.nextCursor
        } while cursor != nil
        #expect(seen == others.reversed())
        let first = try await ListPeople(environment)(.followers(of: self.me), page: try PageRequest(limit: 1, cursor: nil), viewer: self.me)
        let foreign = try #require(first.nextCursor)
        await #expect(throws: SoomError.self) {
            try await ListPeople(environment)(.following(of: self.me), page: try PageRequest(limit: 1, cursor: foreign), viewer: self.me)
        }
        await #expect(throws: SoomError.self) { try await ListBlocks(environment)(page: try PageRequest(limit: 1, cursor: foreign), viewer: self.me) }
    }
}
