import Foundation
import SoomDomain
import Synchronization

/// A `CardRepository` that answers with prepared outcomes and records what it was asked:
/// enough to test the card use cases' own logic (validation, cursors, mapping of outcomes).
final class RecordingCardRepository: CardRepository {
    struct Calls {
        var created: [(NewCard, IdempotencyRecord?)] = []
        var pages: [(Feed, FeedPosition?, Int)] = []
        var sharedPages: [(Feed, FeedPosition?, Int)] = []
        var marks: [UUID] = []
        var reports: [(card: UUID, reporter: UUID, reason: ReportReason, policy: ModerationPolicy)] = []
    }

    let calls = Mutex(Calls())
    let createOutcome: @Sendable (NewCard) -> CreateCardOutcome
    let pageResult: FeedPage?
    let reportOutcome: ReportOutcome
    let marks: @Sendable (UUID) -> ViewerMarks

    init(
        createOutcome: @escaping @Sendable (NewCard) -> CreateCardOutcome = { .created($0.asPosted) }, pageResult: FeedPage? = FeedPage(cards: [], next: nil),
        reportOutcome: ReportOutcome = .reported, marks: @escaping @Sendable (UUID) -> ViewerMarks = { _ in ViewerMarks(liked: [:], blocked: false) }
    ) {
        self.createOutcome = createOutcome
        self.pageResult = pageResult
        self.reportOutcome = reportOutcome
        self.marks = marks
    }

    func create(_ card: NewCard, idempotency: IdempotencyRecord?) async throws -> CreateCardOutcome {
        self.calls.withLock { $0.created.append((card, idempotency)) }
        return self.createOutcome(card)
    }

    func card(id: UUID, viewer: UUID) async throws -> Card? { nil }
    func delete(cardID: UUID, by accountID: UUID) async throws -> DeleteCardOutcome { .notFound }
    func setLike(_ liked: Bool, cardID: UUID, by accountID: UUID) async throws -> LikeState? { nil }

    func page(of feed: Feed, after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        self.calls.withLock { $0.pages.append((feed, position, limit)) }
        return self.pageResult
    }

    func sharedPage(of feed: Feed, after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> (page: FeedPage, marks: ViewerMarks) {
        self.calls.withLock { $0.sharedPages.append((feed, position, limit)) }
        return (self.pageResult ?? FeedPage(cards: [], next: nil), self.marks(viewer))
    }

    func viewerMarks(of viewer: UUID, cards: [UUID], authors: [UUID]) async throws -> ViewerMarks {
        self.calls.withLock { $0.marks.append(viewer) }
        return self.marks(viewer)
    }

    func refreshPopularRanking(limit: Int) async throws {}
    func sweepExpiredStories(limit: Int) async throws -> Int { 0 }
    func purgeIdempotencyKeys(limit: Int) async throws -> Int { 0 }

    func report(cardID: UUID, by reporter: UUID, reason: ReportReason, at time: Date, policy: ModerationPolicy) async throws -> ReportOutcome {
        self.calls.withLock { $0.reports.append((cardID, reporter, reason, policy)) }
        return self.reportOutcome
    }
}
