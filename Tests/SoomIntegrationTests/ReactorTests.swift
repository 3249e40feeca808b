import Foundation
import SoomDomain
import Testing

@testable import SoomHTTP

/// Reducers are pure: these tests need no database, no network and no clock.
@Suite("Reactor reducers")
struct ReactorTests {
    static let account = Account(id: UUID(), nickname: "별", profileImage: nil, bio: "", createdAt: Date(timeIntervalSince1970: 0))
    static let signedIn = SignedInAccount(
        account: account, session: SessionToken(token: String(repeating: "t", count: 43), expiresAt: .distantFuture))

    @Test("ChallengeReactor: issued challenge becomes the state")
    func challenge() {
        let challenge = Challenge(id: "sealed", nonceBytes: Array(repeating: 7, count: 32), expiresAt: Date(timeIntervalSince1970: 300))
        #expect(ChallengeReactor.reduce(state: .error(.internalError), mutation: .issued(challenge)) == .issued(challenge))
    }

    @Test("AccountReactor: registration and transfer both end signed in")
    func account() {
        #expect(AccountReactor.reduce(state: .error(.internalError), mutation: .registered(Self.signedIn)) == .signedIn(Self.signedIn))
        #expect(AccountReactor.reduce(state: .error(.internalError), mutation: .transferred(Self.signedIn)) == .signedIn(Self.signedIn))
    }

    @Test("SessionReactor: sign-in and sign-out")
    func session() {
        #expect(SessionReactor.reduce(state: .error(.internalError), mutation: .signedIn(Self.signedIn)) == .signedIn(Self.signedIn))
        #expect(SessionReactor.reduce(state: .signedIn(Self.signedIn), mutation: .signedOut) == .signedOut)
    }

    @Test("MeReactor: loaded, updated, withdrawn, transfer code; the last mutation wins")
    func me() {
        var updated = Self.account
        updated.bio = "새 소개"
        let mutations: [MeReactor.Mutation] = [.loaded(Self.account), .updated(updated)]
        #expect(mutations.reduce(MeReactor.State.withdrawn, MeReactor.reduce) == .account(updated))
        #expect(MeReactor.reduce(state: .account(Self.account), mutation: .withdrew) == .withdrawn)
        let issued = IssueTransferCode.Issued(code: "ABCD-EFGH-JKMN-PQRS", expiresAt: .distantFuture)
        #expect(MeReactor.reduce(state: .error(.internalError), mutation: .issuedTransferCode(issued)) == .transferCode(issued))
    }

    @Test("NicknameReactor: suggestion and validation")
    func nickname() throws {
        let nickname = try Nickname(validating: "고요한 고래")
        #expect(NicknameReactor.reduce(state: .error(.internalError), mutation: .suggested(nickname)) == .suggestion(nickname))
        #expect(NicknameReactor.reduce(state: .error(.internalError), mutation: .checked(problem: .taken)) == .validation(problem: .taken))
        #expect(NicknameReactor.reduce(state: .error(.internalError), mutation: .checked(problem: nil)) == .validation(problem: nil))
    }

    @Test("mutation descriptions never contain the session token or a transfer code")
    func mutationsAreRedacted() {
        let token = String(repeating: "s", count: 43)
        let mutation = AccountReactor.Mutation.registered(
            SignedInAccount(account: Self.account, session: SessionToken(token: token, expiresAt: .distantFuture)))
        #expect(!String(describing: mutation).contains(token))
        #expect(!String(reflecting: mutation).contains(token))
        let code = MeReactor.Mutation.issuedTransferCode(.init(code: "ABCD-EFGH-JKMN-PQRS", expiresAt: .distantFuture))
        #expect(!String(describing: code).contains("ABCD"))
        var dumped = ""
        dump(mutation, to: &dumped)
        #expect(!dumped.contains(token))
    }
}

@Suite("Operations reducer")
struct OperationsReactorTests {
    @Test("liveness, readiness either way, and the document")
    func reduce() {
        #expect(OperationsReactor.reduce(state: .alive, mutation: .alive) == .alive)
        #expect(OperationsReactor.reduce(state: .notReady, mutation: .databaseChecked(reachable: true)) == .ready)
        #expect(OperationsReactor.reduce(state: .notReady, mutation: .databaseChecked(reachable: false)) == .notReady)
        #expect(OperationsReactor.reduce(state: .document, mutation: .documentLoaded) == .document)
    }
}

@Suite("Card, feed and image reducers")
struct CardReactorTests {
    static let card = Card(
        id: UUID(), content: "c", font: .default, background: .builtIn(name: "sky-dawn"), tags: [],
        author: UserSummary(id: UUID(), nickname: "n", profileImage: nil), parentID: nil, parentDeleted: false,
        createdAt: Date(timeIntervalSince1970: 0), expiresAt: nil, likeCount: 0, commentCount: 0, likedByMe: false, isMine: true,
        distanceMeters: nil)

    @Test("CardReactor: posted (also a replay), loaded, deleted, like state")
    func card() {
        #expect(CardReactor.reduce(state: .error(.internalError), mutation: .replayed(Self.card)) == .posted(Self.card))
        #expect(CardReactor.reduce(state: .error(.notFound), mutation: .loaded(Self.card)) == .card(Self.card))
        #expect(CardReactor.reduce(state: .card(Self.card), mutation: .deleted(Self.card.id)) == .deleted)
        let like = LikeState(liked: true, likeCount: 3)
        #expect(CardReactor.reduce(state: .error(.notFound), mutation: .likeSet(like)) == .like(like))
    }

    @Test("FeedReactor: a page and its cursor")
    func feed() {
        #expect(
            FeedReactor.reduce(state: .empty, mutation: .pageLoaded(cards: [Self.card], nextCursor: "n"))
                == .init(cards: [Self.card], nextCursor: "n"))
        #expect(FeedReactor.reduce(state: .empty, mutation: .pageLoaded(cards: [], nextCursor: nil)) == .empty)
    }

    @Test("ImagesReactor: defaults, a picture (fresh or not modified), an upload")
    func images() throws {
        #expect(ImagesReactor.reduce(state: .defaults, mutation: .defaultsListed) == .defaults)
        let picture = ImagesReactor.Mutation.pictureFound(
            buffer: .init(), contentType: "image/png", etag: "\"e\"", immutable: true, notModified: true)
        #expect(
            ImagesReactor.reduce(state: .error(.notFound), mutation: picture)
                == .picture(buffer: .init(), contentType: "image/png", etag: "\"e\"", immutable: true, notModified: true))
        #expect(ImagesReactor.matches("\"a\", \"e\"", "\"e\""))
        #expect(ImagesReactor.matches("W/\"e\"", "\"e\""))
        #expect(ImagesReactor.matches("*", "\"e\""))
        #expect(!ImagesReactor.matches("\"x\"", "\"e\""))
        #expect(!ImagesReactor.matches(nil, "\"e\""))
        let notModified = try ImagesReactor.State.picture(
            buffer: .init(), contentType: "image/png", etag: "\"e\"", immutable: true, notModified: true
        ).response()
        #expect(notModified.status == .notModified && notModified.headers[.eTag] == "\"e\"")
    }
}

@Suite("JSON conventions")
struct JSONConventionTests {
    @Test("times are RFC 3339 UTC with milliseconds, truncated, also before 1970 and at leap days")
    func timestamps() {
        #expect(JSON.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(JSON.timestamp(Date(timeIntervalSince1970: 1_795_346_296.1239)) == "2026-11-22T11:18:16.123Z")
        #expect(JSON.timestamp(Date(timeIntervalSince1970: 951_782_400.5)) == "2000-02-29T00:00:00.500Z")
        #expect(JSON.timestamp(Date(timeIntervalSince1970: -0.001)) == "1969-12-31T23:59:59.999Z")
        #expect(JSON.timestamp(Date(timeIntervalSince1970: 253_402_300_799.999)) == "9999-12-31T23:59:59.999Z")
    }
}
