import Foundation
import SoomDomain
import Testing

@Suite("Poll rules")
struct PollRuleTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func field(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return (error as? SoomError)?.field ?? "not a SoomError"
        }
    }

    @Test("options: 2–4, each 1–30 characters once trimmed, distinct ignoring case; anything else is 422 on poll")
    func options() throws {
        let poll = try PollDraft(options: [" 김밥 ", "라면", "Café"], multiple: nil, closesAt: nil)
        #expect(poll.options == ["김밥", "라면", "Café"] && !poll.multiple && poll.closesAt == nil)
        #expect(try PollDraft(options: ["가", String(repeating: "나", count: 30)], multiple: true, closesAt: nil).multiple)
        let broken: [[String]] = [
            ["하나"], ["1", "2", "3", "4", "5"], ["가", " "], ["가", String(repeating: "나", count: 31)], ["Yes", "yes"], ["가", "가"],
            // The same text composed and decomposed is one option.
            ["Cafe\u{301}", "Café"],
        ]
        for options in broken {
            #expect(Self.field { _ = try PollDraft(options: options, multiple: nil, closesAt: nil) } == "poll", "\(options)")
        }
    }

    @Test("closesAt: 5 minutes to 7 days after posting; a story's poll closes with the story at the latest")
    func closing() throws {
        let story = Self.now.addingTimeInterval(CardDraft.storyLifetime)
        func closing(in seconds: TimeInterval?, story end: Date? = nil) throws -> Date? {
            try PollDraft(options: ["가", "나"], multiple: nil, closesAt: seconds.map { Self.now.addingTimeInterval($0) })
                .closing(postedAt: Self.now, storyEnd: end)
        }
        #expect(try closing(in: nil) == nil)
        #expect(try closing(in: 300) == Self.now.addingTimeInterval(300))
        #expect(try closing(in: 7 * 86_400) == Self.now.addingTimeInterval(7 * 86_400))
        #expect(try closing(in: nil, story: story) == story)
        #expect(try closing(in: 3600, story: story) == Self.now.addingTimeInterval(3600))
        #expect(try closing(in: 3 * 86_400, story: story) == story)
        for seconds: TimeInterval in [-60, 0, 299, 7 * 86_400 + 1] {
            #expect(Self.field { _ = try closing(in: seconds) } == "poll", "\(seconds)")
        }
    }

    @Test("a ballot: one to four distinct indexes 0…3, kept as bits, shown ascending")
    func ballot() throws {
        #expect(try Ballot(choosing: [3, 0]).indexes == [0, 3])
        #expect(try Ballot(choosing: [3, 0]) == Ballot(bits: 0b1001))
        #expect(try Ballot(choosing: [0, 1, 2, 3]).bits == 15)
        #expect(Ballot.none.indexes == [])
        for bad in [[], [4], [-1], [1, 1], [Int.max]] {
            #expect(Self.field { _ = try Ballot(choosing: bad) } == "options", "\(bad)")
        }
    }

    @Test("a poll on a comment card is 422 on poll, storing nothing; a posted poll starts at zero, closing as computed")
    func posting() async throws {
        let repository = RecordingCardRepository()
        let environment = CardEnvironment(cards: repository, now: { Self.now })
        let poll = try PollDraft(options: ["가", "나"], multiple: true, closesAt: nil)
        let draft = try CardDraft(content: "투표", font: nil, background: .builtIn("sky-dawn"), tags: nil, story: true, location: nil, poll: poll)
        await #expect {
            try await PostCard(environment)(by: CardUseCaseTests.author, parentID: UUID(), draft: draft, idempotencyKey: nil)
        } throws: { ($0 as? SoomError)?.field == "poll" }
        #expect(repository.calls.withLock { $0.created.isEmpty })

        let posted = try await PostCard(environment)(by: CardUseCaseTests.author, parentID: nil, draft: draft, idempotencyKey: nil).card
        let shown = try #require(posted.poll)
        #expect(shown.options == [Poll.Option(text: "가", voteCount: 0), Poll.Option(text: "나", voteCount: 0)])
        #expect(shown.multiple && shown.voterCount == 0 && shown.myVotes == .none && !shown.closed)
        #expect(shown.closesAt == posted.expiresAt && posted.expiresAt != nil)
        #expect(repository.calls.withLock { $0.created.first?.0.pollClosesAt } == posted.expiresAt)
        // The poll is part of the request an Idempotency-Key stands for.
        let other = try CardDraft(
            content: "투표", font: nil, background: .builtIn("sky-dawn"), tags: nil, story: true, location: nil,
            poll: try PollDraft(options: ["가", "다"], multiple: true, closesAt: nil))
        #expect(draft.canonicalForm(parentID: nil) != other.canonicalForm(parentID: nil))
    }

    @Test("ballot outcomes become the contract's answers: the poll, 404, 409 poll_closed, 422 on options or id")
    func voting() async throws {
        let repository = RecordingCardRepository()
        let environment = CardEnvironment(cards: repository)
        let card = UUID()
        let voter = UUID()
        let poll = Poll(
            options: [.init(text: "가", voteCount: 1), .init(text: "나", voteCount: 0)], multiple: false, voterCount: 1,
            myVotes: Ballot(bits: 1), closesAt: nil, closed: false)
        repository.voteOutcome.withLock { $0 = .voted(poll) }
        #expect(try await VoteInPoll(environment)(Ballot(bits: 1), cardID: card, by: voter) == poll)
        #expect(repository.calls.withLock { $0.ballots.map(\.ballot) } == [Ballot(bits: 1)])
        let refusals: [(VoteOutcome, String, String?)] = [
            (.notFound, "not_found", nil), (.closed, "poll_closed", nil), (.invalid, "validation_failed", "options"),
            (.author, "validation_failed", "id"),
        ]
        for (outcome, code, field) in refusals {
            repository.voteOutcome.withLock { $0 = outcome }
            await #expect {
                try await VoteInPoll(environment)(.none, cardID: card, by: voter)
            } throws: { ($0 as? SoomError)?.code == code && ($0 as? SoomError)?.field == field }
        }
    }
}
