import Foundation
import Hummingbird
import Logging
import SoomDomain
import Testing

@testable import SoomHTTP

/// What the reactors' mutations fold into, from no state, and what the states answer; that a
/// fold into no state is a fault; that `transform` logs. Reducers are pure: no database, no
/// network, no clock; the use cases get stubs that answer the one call each test makes.
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

    /// The mutations folded as `run` folds them: from no state.
    static func fold<R: Reactor>(_ reactor: R.Type, _ mutations: [R.Mutation]) -> R.State? {
        mutations.reduce(nil, R.reduce)
    }

    @Test("posting a comment card: one fact, the stored card, counted once as a comment card; answered 201 with Location")
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
        #expect(mutations == [.stored(card)])
        #expect(Self.fold(CardReactor.self, mutations) == .posted(card))
        #expect(mutations.compactMap(CardReactor.counter(for:)) == [.commentCardPosted])
        let response = try await reactor.run(action, logger: Logger(label: "test")).response()
        #expect(response.status == .created)
        #expect(response.headers[.location]?.hasPrefix("/v1/cards/") == true)
    }

    @Test("a top-level card counts as a card posted; a replay is answered like the first and counted nowhere")
    func postAndReplay() throws {
        let card = try Self.card()
        #expect(CardReactor.counter(for: .stored(card)) == .cardPosted)
        let tagged = try Self.card(parentID: UUID(), tags: ["하늘"])
        #expect(CardReactor.counter(for: .replayed(tagged)) == nil)
        #expect(Self.fold(CardReactor.self, [.replayed(tagged)]) == .posted(tagged))
    }

    @Test("the report that hides a card: reported and hidden, each counted once, and the answer stays 202")
    func reportThatHides() async throws {
        let id = UUID()
        let reactor = Self.cardReactor(reporting: .hid)
        let mutations = try await reactor.mutate(action: .report(id, .abuse))
        #expect(mutations == [.reported(id), .hidden(id)])
        #expect(Self.fold(CardReactor.self, mutations) == .reportAccepted)
        #expect(Self.fold(CardReactor.self, mutations)?.response().status == .accepted)
        #expect(mutations.compactMap(CardReactor.counter(for:)) == [.report, .cardHidden])
        #expect(try await Self.cardReactor(reporting: .reported).mutate(action: .report(id, .abuse)) == [.reported(id)])
        // Hidden alone is no answer: a fault, not a placeholder.
        #expect(Self.fold(CardReactor.self, [.hidden(id)]) == nil)
    }

    @Test("a card's facts fold into their answers: the card, 204 for a deletion, the like state")
    func cardStates() throws {
        let card = try Self.card()
        #expect(Self.fold(CardReactor.self, [.loaded(card)]) == .card(card))
        #expect(Self.fold(CardReactor.self, [.deleted(card.id)])?.response().status == .noContent)
        let like = LikeState(liked: true, likeCount: 2)
        #expect(Self.fold(CardReactor.self, [.likeSet(like)]) == .like(like))
        #expect(CardReactor.counter(for: .likeSet(like)) == .like)
        #expect(CardReactor.counter(for: .likeSet(LikeState(liked: false, likeCount: 1))) == nil)
        let poll = Poll(
            options: [.init(text: "가", voteCount: 1), .init(text: "나", voteCount: 0)], multiple: false, voterCount: 1, myVotes: Ballot(bits: 1),
            closesAt: nil, closed: false)
        #expect(Self.fold(CardReactor.self, [.voted(poll)]) == .poll(poll))
        #expect(CardReactor.counter(for: .voted(poll)) == .ballot)
        #expect(CardReactor.counter(for: .voted(poll.seen(with: .none))) == nil, "a withdrawn ballot is not a ballot cast")
    }

    @Test("mutations that fold into no state are a fault: run throws, and ErrorMiddleware answers 500 internal_error, logged")
    func noStateIsAFault() async throws {
        let lines = ErrorMappingTests.Lines()
        await #expect(throws: ReactorFault.self) { try await Silent().run(.act, logger: lines.logger) }
        let mapped = ErrorMiddleware<AppRequestContext>.apiError(for: ReactorFault(reactor: "Silent"), logger: lines.logger)
        #expect(mapped == .internalError)
        #expect(lines.all.contains { $0.contains("unexpected error") && $0.contains("Silent reported no fact") })
    }

    @Test("feed pages append: one list, the last page's cursor, and a page's memos only while it is the whole list")
    func feedPagesAppend() throws {
        let (first, second) = (try Self.card(), try Self.card())
        let memo = SharedMemos.cards([JSONMemo<SharedCardJSON>()])
        let one = FeedReactor.reduce(state: nil, mutation: .pageLoaded(cards: [first], nextCursor: "a", shared: memo))
        #expect(one == FeedReactor.State(cards: [first], nextCursor: "a", shared: memo))
        let two = FeedReactor.reduce(state: one, mutation: .pageLoaded(cards: [second], nextCursor: nil, shared: memo))
        #expect(two == FeedReactor.State(cards: [first, second], nextCursor: nil, shared: nil))
        let empty = try #require(FeedReactor.reduce(state: nil, mutation: .pageLoaded(cards: [], nextCursor: nil)))
        var writer = JSONWriter()
        CardListBody(cards: empty.cards, nextCursor: empty.nextCursor).write(to: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"items":[],"nextCursor":null}"#)
        #expect(empty.response().status == .ok && empty.response().body.contentLength == writer.bytes.count)
    }

    @Test("notification and people lists append; a list of the other kind starts anew; marking read answers 204")
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
        #expect(Self.fold(NotificationReactor.self, pages) == .page(notifications, nextCursor: nil))
        #expect(Self.fold(NotificationReactor.self, [.markedAllRead]) == .done)
        #expect(Self.fold(NotificationReactor.self, [.markedRead(UUID())])?.response().status == .noContent)

        let blocks: [PeopleListReactor.Mutation] = [.blocksLoaded([user], nextCursor: "b"), .blocksLoaded([user], nextCursor: nil)]
        #expect(Self.fold(PeopleListReactor.self, blocks) == .blocks([user, user], nextCursor: nil))
        #expect(
            PeopleListReactor.reduce(state: .blocks([user], nextCursor: "b"), mutation: .profilesLoaded([], nextCursor: nil))
                == .profiles([], nextCursor: nil))
    }

    @Test("identity: a transfer signs in on the new device and out on the old; only a registration counts a sign-up")
    func transfer() throws {
        let signedIn = SignedInAccount(
            account: Self.author, session: SessionToken(token: String(repeating: "t", count: 43), expiresAt: .distantFuture))
        #expect(Self.fold(AccountReactor.self, [.transferred(signedIn), .oldDeviceSignedOut]) == .signedIn(signedIn))
        #expect(Self.fold(AccountReactor.self, [.oldDeviceSignedOut]) == nil)
        #expect([AccountReactor.Mutation.transferred(signedIn), .oldDeviceSignedOut].compactMap(AccountReactor.counter(for:)).isEmpty)
        #expect(AccountReactor.counter(for: .registered(signedIn)) == .signUp)
        #expect(Self.fold(AccountReactor.self, [.registered(signedIn)])?.response().status == .created)
        #expect(Self.fold(SessionReactor.self, [.signedIn(signedIn), .signedOut]) == .signedOut)
        let issued = IssueTransferCode.Issued(code: "ABCD-EFGH-JKMN-PQRS", expiresAt: .distantFuture)
        var updated = Self.author
        updated.bio = "새 소개"
        #expect(Self.fold(MeReactor.self, [.loaded(Self.author), .updated(updated)]) == .account(updated))
        #expect(Self.fold(MeReactor.self, [.withdrew])?.response().status == .noContent)
        #expect(Self.fold(MeReactor.self, [.issuedTransferCode(issued)])?.response().status == .created)
    }

    @Test("nicknames, people and tags: each fact becomes its state")
    func otherStates() throws {
        let nickname = try Nickname(validating: "고요한 고래")
        #expect(Self.fold(NicknameReactor.self, [.suggested(nickname)]) == .suggestion(nickname))
        #expect(Self.fold(NicknameReactor.self, [.checked(problem: .taken)]) == .validation(problem: .taken))
        let challenge = Challenge(id: "sealed", nonceBytes: Array(repeating: 7, count: 32), expiresAt: Date(timeIntervalSince1970: 300))
        #expect(Self.fold(ChallengeReactor.self, [.issued(challenge)]) == .issued(challenge))
        #expect(Self.fold(PeopleReactor.self, [.followChanged(following: true, followerCount: 7)]) == .follow(following: true, followerCount: 7))
        #expect(Self.fold(PeopleReactor.self, [.blockChanged(true)]) == .block(true))
        let (sky, sea) = (TagUsage(name: "하늘", usageCount: 3), TagUsage(name: "바다", usageCount: 1))
        #expect(Self.fold(TagReactor.self, [.listed([sky]), .listed([sea])]) == .list([sky, sea]))
        let detail = TagDetail(name: "하늘", usageCount: 0, isFavorite: true)
        #expect(Self.fold(TagReactor.self, [.listed([sky]), .loaded(detail)]) == .tag(detail))
        #expect(Self.fold(FavoriteTagReactor.self, [.favoriteSet(true), .favoriteSet(false)]) == .favorite(false))
        #expect(Self.fold(FavoriteTagReactor.self, [.listed([sky]), .listed([sea])]) == .list([sky, sea]))
    }

    @Test("images: a picture fresh or not modified, an upload")
    func images() {
        let file = StaticFile(buffer: .init(), contentType: "image/png", etag: "\"e\"")
        #expect(Self.fold(ImagesReactor.self, [.pictureFound(file, notModified: true)]) == .picture(file, notModified: true))
        let notModified = ImagesReactor.State.picture(file, notModified: true).response()
        #expect(notModified.status == .notModified && notModified.headers[.eTag] == "\"e\"")
        #expect(notModified.headers[.cacheControl] == "public, max-age=31536000, immutable" && notModified.headers[.contentType] == nil)
        #expect(ImagesReactor.digests(in: "W/\"\(String(repeating: "a", count: 64))\", *, \"short\"") == [String(repeating: "a", count: 64), "*"])
    }

    @Test("transform logs each run's mutations once and changes nothing")
    func transformLogs() async throws {
        let lines = ErrorMappingTests.Lines()
        let reactor = Self.cardReactor()
        let mutations: [CardReactor.Mutation] = [.reported(UUID()), .deleted(UUID())]
        #expect(reactor.transform(mutations, logger: lines.logger) == mutations)
        #expect(lines.all.count == 1 && lines.all[0].contains("reactor mutations") && lines.all[0].contains("CardReactor"))
        #expect(lines.all[0].contains("reported("))
    }

    @Test("mutation descriptions never contain the session token or a transfer code")
    func mutationsAreRedacted() {
        let token = String(repeating: "s", count: 43)
        let mutation = AccountReactor.Mutation.registered(
            SignedInAccount(account: Self.author, session: SessionToken(token: token, expiresAt: .distantFuture)))
        #expect(!String(describing: mutation).contains(token))
        #expect(!String(reflecting: mutation).contains(token))
        let code = MeReactor.Mutation.issuedTransferCode(.init(code: "ABCD-EFGH-JKMN-PQRS", expiresAt: .distantFuture))
        #expect(!String(describing: code).contains("ABCD"))
        var dumped = ""
        dump(mutation, to: &dumped)
        #expect(!dumped.contains(token))
    }
}

/// A reactor that reports no fact: its run has nothing to answer with.
private struct Silent: Reactor {
    enum Action: Sendable { case act }
    enum Mutation: Sendable { case nothing }
    enum State: Sendable, Equatable { case never }

    func mutate(action: Action) async throws -> [Mutation] { [] }
    static func reduce(state: State?, mutation: Mutation) -> State? { state }
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
    func vote(_ ballot: Ballot, cardID: UUID, by voter: UUID) async throws -> VoteOutcome { .notFound }
    func closeDuePolls(limit: Int) async throws -> [UUID] { [] }
}

/// A feed whose subject does not exist.
private struct NoFeed: FeedSource {
    func page(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? { nil }
}
