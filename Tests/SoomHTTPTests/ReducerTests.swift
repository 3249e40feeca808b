import Foundation
import Hummingbird
import SoomDomain
import Testing

@testable import SoomHTTP

/// What the reactors' mutations fold into, from the state each action starts in; what each
/// initial state answers; and that `transform` logs and counts. No database: the use cases get
/// stubs that answer the one call each test makes.
@Suite("Reducers")
struct ReducerTests {
    static let author = Account(id: UUID(), nickname: "별", profileImage: nil, bio: "", createdAt: Date(timeIntervalSince1970: 0))
    static let caller = Authenticate.Caller(account: author, tokenHash: [])

    static func draft(tags: [String] = []) throws -> CardDraft {
        try CardDraft(content: "c", font: nil, background: .builtIn("sky-dawn"), tags: tags, story: nil, location: nil)
    }

    static func card(parentID: UUID? = nil, tags: [String] = []) throws -> Card {
        let summary = UserSummary(id: Self.author.id, nickname: "별", profileImage: nil)
        return NewCard(id: UUID(), author: summary, parentID: parentID, draft: try Self.draft(tags: tags), createdAt: Date(timeIntervalSince1970: 0))
            .asPosted
    }

    static func cardReactor(reporting outcome: ReportOutcome = .reported) -> CardReactor {
        CardReactor(caller: Self.caller, cards: CardEnvironment(cards: StubCards(report: outcome)))
    }

    @Test("posting a comment card: stored, tags counted, parent counted; the fold answers the stored card, counted once")
    func postComment() async throws {
        let parentID = UUID()
        let reactor = Self.cardReactor()
        let action = CardReactor.Action.post(try Self.draft(tags: ["하늘", "바다"]), parentID: parentID, idempotencyKey: nil)
        let mutations = try await reactor.mutate(action: action)
        guard case .stored(let card) = mutations.first else {
            Issue.record("no stored card first: \(mutations)")
            return
        }
        #expect(card.tags == ["하늘", "바다"] && card.parentID == parentID)
        #expect(mutations == [.stored(card), .tagsCounted(["하늘", "바다"]), .commentCounted(parentID: parentID)])
        #expect(mutations.reduce(reactor.initialState(for: action), CardReactor.reduce) == .posted(card))
        #expect(mutations.compactMap(CardReactor.counter(for:)) == [.commentCardPosted])
    }

    @Test("a top-level card without tags is one fact; a replay is one fact, counted nowhere, answered like the first")
    func postAndReplay() throws {
        let card = try Self.card()
        #expect(CardReactor.mutations(of: PostedCard(card: card, replayed: false)) == [.stored(card)])
        #expect(CardReactor.counter(for: .stored(card)) == .cardPosted)
        let tagged = try Self.card(parentID: UUID(), tags: ["하늘"])
        let replay = CardReactor.mutations(of: PostedCard(card: tagged, replayed: true))
        #expect(replay == [.replayed(tagged)])
        #expect(CardReactor.counter(for: .replayed(tagged)) == nil)
        #expect(replay.reduce(.error(.internalError), CardReactor.reduce) == .posted(tagged))
    }

    @Test("the report that hides a card: reported and hidden, each counted once, and the answer stays 202")
    func reportThatHides() async throws {
        let id = UUID()
        let reactor = Self.cardReactor(reporting: .hid)
        let mutations = try await reactor.mutate(action: .report(id, .abuse))
        #expect(mutations == [.reported(id), .hidden(id)])
        #expect(reactor.initialState(for: .report(id, .abuse)) == .reportAccepted)
        #expect(mutations.reduce(reactor.initialState(for: .report(id, .abuse)), CardReactor.reduce) == .reportAccepted)
        #expect(mutations.compactMap(CardReactor.counter(for:)) == [.report, .cardHidden])
        #expect(try await Self.cardReactor(reporting: .reported).mutate(action: .report(id, .abuse)) == [.reported(id)])
    }

    @Test("a card's initial states answer 204, 202, 404 and 500, as documented")
    func cardInitialStates() throws {
        let reactor = Self.cardReactor()
        let id = UUID()
        #expect(try reactor.initialState(for: .delete(id)).response().status == .noContent)
        #expect(try reactor.initialState(for: .report(id, .abuse)).response().status == .accepted)
        #expect(try reactor.initialState(for: .show(id)).response().status == .notFound)
        #expect(try reactor.initialState(for: .like(id, true)).response().status == .notFound)
        let post = reactor.initialState(for: .post(try Self.draft(), parentID: nil, idempotencyKey: nil))
        #expect(post == .error(.internalError))
        #expect(try post.response().status == .internalServerError)
        #expect(
            CardReactor.reduce(state: .error(.notFound), mutation: .likeSet(LikeState(liked: true, likeCount: 2)))
                == .like(.init(liked: true, likeCount: 2)))
    }

    @Test("feed pages append: one list, the last page's cursor, and a page's memos only while it is the whole list")
    func feedPagesAppend() throws {
        let reactor = FeedReactor(caller: Self.caller, cards: CardEnvironment(cards: StubCards()))
        let initial = reactor.initialState(for: .read(.latest, try PageRequest(limit: 20, cursor: nil)))
        #expect(initial == .empty && initial.cards.isEmpty && initial.nextCursor == nil)
        var writer = JSONWriter()
        CardListBody(cards: initial.cards, nextCursor: initial.nextCursor).write(to: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"items":[],"nextCursor":null}"#)
        #expect(initial.response().status == .ok && initial.response().body.contentLength == writer.bytes.count)
        let (first, second) = (try Self.card(), try Self.card())
        let memo = SharedMemos.page(JSONMemo<SharedCardsJSON>())
        let one = FeedReactor.reduce(state: initial, mutation: .pageLoaded(cards: [first], nextCursor: "a", shared: memo))
        #expect(one == FeedReactor.State(cards: [first], nextCursor: "a", shared: memo))
        let two = FeedReactor.reduce(state: one, mutation: .pageLoaded(cards: [second], nextCursor: nil, shared: memo))
        #expect(two == FeedReactor.State(cards: [first, second], nextCursor: nil, shared: nil))
    }

    @Test("notification and people lists append; marking read answers 204 with or without a fact")
    func listsAppend() {
        let user = UserSummary(id: UUID(), nickname: "하늘", profileImage: nil)
        let notifications = (0..<3).map { index in
            AccountNotification(
                id: UUID(), type: .cardCommented, createdAt: Date(timeIntervalSince1970: Double(index)), read: false, actor: user, cardID: UUID(),
                tag: nil, until: nil)
        }
        let pages: [NotificationReactor.Mutation] = [
            .loaded(Array(notifications[..<2]), nextCursor: "n"), .loaded([notifications[2]], nextCursor: nil),
        ]
        #expect(pages.reduce(.page([], nextCursor: nil), NotificationReactor.reduce) == .page(notifications, nextCursor: nil))
        #expect(NotificationReactor.reduce(state: .done, mutation: .markedAllRead) == .done)
        #expect((try? NotificationReactor.State.done.response().status) == .noContent)

        let blocks: [PeopleListReactor.Mutation] = [.blocksLoaded([user], nextCursor: "b"), .blocksLoaded([user], nextCursor: nil)]
        #expect(blocks.reduce(.blocks([], nextCursor: nil), PeopleListReactor.reduce) == .blocks([user, user], nextCursor: nil))
        #expect(
            PeopleListReactor.reduce(state: .blocks([user], nextCursor: "b"), mutation: .profilesLoaded([], nextCursor: nil))
                == .profiles([], nextCursor: nil))
    }

    @Test("a transfer signs in on the new device and out on the old; only a registration counts a sign-up")
    func transfer() throws {
        let signedIn = SignedInAccount(
            account: Self.author, session: SessionToken(token: String(repeating: "t", count: 43), expiresAt: .distantFuture))
        let transfer: [AccountReactor.Mutation] = [.transferred(signedIn), .oldDeviceSignedOut]
        #expect(transfer.reduce(.error(.internalError), AccountReactor.reduce) == .signedIn(signedIn))
        #expect(transfer.compactMap(AccountReactor.counter(for:)).isEmpty)
        #expect(AccountReactor.counter(for: .registered(signedIn)) == .signUp)
        #expect(try AccountReactor.State.error(.internalError).response().status == .internalServerError)
    }

    @Test("operations: alive and not ready until asked; run folds the readiness check; transform logs once and changes nothing")
    func operations() async throws {
        let lines = ErrorMappingTests.Lines()
        let reachable = OperationsReactor(readiness: StubProbe(reachable: true))
        #expect(reachable.initialState(for: .checkLiveness) == .alive)
        #expect(reachable.initialState(for: .checkReadiness) == .notReady)
        #expect(try reachable.initialState(for: .checkReadiness).response().status == .serviceUnavailable)
        #expect(try reachable.initialState(for: .exportMetrics).response().body.contentLength == 0)
        #expect(try await reachable.run(.checkReadiness, logger: lines.logger) == .ready)
        #expect(try await OperationsReactor(readiness: StubProbe(reachable: false)).run(.checkReadiness, logger: lines.logger) == .notReady)
        #expect(lines.all.count == 2 && lines.all.allSatisfy { $0.contains("reactor mutations") && $0.contains("OperationsReactor") })
        let mutations: [OperationsReactor.Mutation] = [.alive, .databaseChecked(reachable: true)]
        #expect(reachable.transform(mutations, logger: lines.logger) == mutations)
        #expect(lines.all.count == 3 && lines.all[2].contains("databaseChecked(reachable: true)"))
    }

    @Test("tags: nothing read is no tags, or the tag as asked unused; listed tags join the list")
    func tags() {
        let reactor = TagReactor(caller: nil, tags: TagEnvironment(tags: StubTags()))
        #expect(reactor.initialState(for: .ranked) == .list([]))
        #expect(reactor.initialState(for: .show(name: "하늘")) == .tag(TagDetail(name: "하늘", usageCount: 0, isFavorite: false)))
        let (sky, sea) = (TagUsage(name: "하늘", usageCount: 3), TagUsage(name: "바다", usageCount: 1))
        #expect([.listed([sky]), .listed([sea])].reduce(TagReactor.State.list([]), TagReactor.reduce) == .list([sky, sea]))
    }
}

/// Answers `create` with the card as posted and `report` with a fixed outcome; nothing else is called.
private struct StubCards: CardRepository {
    var report: ReportOutcome = .reported

    func create(_ card: NewCard, idempotency: IdempotencyRecord?) async throws -> CreateCardOutcome { .created(card.asPosted) }
    func report(cardID: UUID, by reporter: UUID, reason: ReportReason, at time: Date, policy: ModerationPolicy) async throws -> ReportOutcome {
        self.report
    }
    func card(id: UUID, viewer: UUID) async throws -> Card? { nil }
    func delete(cardID: UUID, by accountID: UUID) async throws -> DeleteCardOutcome { .notFound }
    func setLike(_ liked: Bool, cardID: UUID, by accountID: UUID) async throws -> LikeState? { nil }
    func source(for feed: Feed) -> any FeedSource { NoFeed() }
    func viewerMarks(of viewer: UUID, cards: [UUID], authors: [UUID]) async throws -> ViewerMarks { throw SoomError.cardNotFound }
    func likeBook(of viewer: UUID, limit: Int) async throws -> ViewerMarks? { nil }
    func sharedCards(_ ids: [UUID]) async throws -> [Card] { [] }
    func refreshPopularRanking(limit: Int, rescan: Bool) async throws {}
    func sweepExpiredStories(limit: Int) async throws -> Int { 0 }
    func purgeIdempotencyKeys(limit: Int) async throws -> Int { 0 }
}

/// A feed whose subject does not exist.
private struct NoFeed: FeedSource {
    func page(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? { nil }
}

/// No tags at all.
private struct StubTags: TagRepository {
    func ranked(limit: Int) async throws -> [TagUsage] { [] }
    func search(prefix: String, limit: Int) async throws -> [TagUsage] { [] }
    func detail(of tag: SoomDomain.Tag, viewer: UUID?) async throws -> TagDetail { TagDetail(name: tag.name, usageCount: 0, isFavorite: false) }
    func setFavorite(_ favorite: Bool, tag: SoomDomain.Tag, account: UUID, limit: Int) async throws -> FavoriteOutcome { .done(favorite: favorite) }
    func favorites(of account: UUID) async throws -> [TagUsage] { [] }
}

private struct StubProbe: ReadinessProbe {
    let reachable: Bool
    func isReachable() async -> Bool { self.reachable }
}
