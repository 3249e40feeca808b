import Foundation
import SoomDomain
import Testing

@Suite("Reports and restrictions: rules and the use case")
struct SafetyRuleTests {
    @Test("report reasons are exactly the contract's; anything else is 422 on reason")
    func reasons() throws {
        #expect(ReportReason.allCases.map(\.rawValue) == ["abuse", "privacy", "advertising", "sexual", "impersonation", "other"])
        #expect(try ReportReason(validating: "privacy") == .privacy)
        for bad in ["", "Abuse", "spam", "abuse ", "other\u{0}"] {
            #expect { try ReportReason(validating: bad) } throws: { ($0 as? SoomError)?.field == "reason" }
        }
    }

    @Test("the default policy is 4 reporters and 1, 7, 14, then 30 days; the last length repeats")
    func policy() throws {
        let policy = ModerationPolicy.default
        #expect(policy.reportThreshold == 4)
        #expect((0..<6).map { policy.restrictionDays(after: $0) } == [1, 7, 14, 30, 30, 30])
        #expect(try ModerationPolicy(reportThreshold: 2, restrictionDays: [3]).restrictionDays(after: 5) == 3)
        #expect(throws: ModerationPolicy.Invalid.self) { try ModerationPolicy(reportThreshold: 0, restrictionDays: [1]) }
        #expect(throws: ModerationPolicy.Invalid.self) { try ModerationPolicy(reportThreshold: 4, restrictionDays: []) }
        #expect(throws: ModerationPolicy.Invalid.self) { try ModerationPolicy(reportThreshold: 4, restrictionDays: [1, 0]) }
    }

    @Test("reporting passes the environment's policy and maps every outcome to the contract")
    func reportOutcomes() async throws {
        let policy = try ModerationPolicy(reportThreshold: 2, restrictionDays: [5, 9])
        let repository = RecordingCardRepository(reportOutcome: .hid)
        let card = UUID()
        let reporter = UUID()
        #expect(try await ReportCard(CardEnvironment(cards: repository, moderation: policy))(card, reason: .sexual, by: reporter))
        let call = try #require(repository.calls.withLock { $0.reports.first })
        #expect(call.card == card && call.reporter == reporter && call.reason == .sexual && call.policy == policy)

        #expect(
            try await ReportCard(CardEnvironment(cards: RecordingCardRepository(reportOutcome: .reported)))(card, reason: .abuse, by: reporter)
                == false)
        let failures: [(ReportOutcome, String, SoomError.Kind)] = [
            (.notFound, "not_found", .notFound), (.ownCard, "validation_failed", .validation), (.alreadyReported, "already_reported", .conflict),
        ]
        for (outcome, code, kind) in failures {
            await #expect {
                try await ReportCard(CardEnvironment(cards: RecordingCardRepository(reportOutcome: outcome)))(card, reason: .other, by: reporter)
            } throws: { ($0 as? SoomError)?.code == code && ($0 as? SoomError)?.kind == kind }
        }
    }

    @Test("a restricted author's post is 423 account_restricted with restrictedUntil")
    func restrictedPost() async throws {
        let until = Date(timeIntervalSince1970: 1_900_000_000)
        let environment = CardEnvironment(cards: RecordingCardRepository(createOutcome: { _ in .authorRestricted(until: until) }))
        let author = Account(id: UUID(), nickname: "제한", profileImage: nil, bio: "", createdAt: Date())
        await #expect {
            try await PostCard(environment)(by: author, parentID: nil, draft: try CardRuleTests.draft(), idempotencyKey: nil)
        } throws: { error in
            guard let error = error as? SoomError else { return false }
            return error.kind == .restricted && error.code == "account_restricted" && error.details["restrictedUntil"] == .time(until)
        }
    }
}
