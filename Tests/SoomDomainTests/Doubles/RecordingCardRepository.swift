import Foundation
import SoomDomain
import Synchronization

/// The account no one is, as whom shared cards are read.
enum PostgresNobody {
    static let id = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
}

/// A `CardRepository` that answers with prepared outcomes and records what it was asked:
/// enough to test the card use cases' own logic (validation, cursors, mapping of outcomes).
final class RecordingCardRepository: CardRepository {
    struct Calls {
        var created: [(NewCard, IdempotencyRecord?)] = []
        var pages: [(Feed, FeedPosition?, Int)] = []
        var marks: [UUID] = []
        var books: [UUID] = []
        var chunkReads: [[NearbyChunk.Key]] = []
        var cardReads: [[UUID]] = []
        var details: [(id: UUID, viewer: UUID)] = []
        var positionReads: [(Feed, FeedPosition?, Int)] = []
        var reports: [(card: UUID, reporter: UUID, reason: ReportReason, policy: ModerationPolicy)] = []
        var ballots: [(card: UUID, voter: UUID, ballot: Ballot)] = []
    }

    /// What the next ballot change answers.
    let voteOutcome = Mutex(VoteOutcome.notFound)

    let calls = Mutex(Calls())
    let createOutcome: @Sendable (NewCard) -> CreateCardOutcome
    private let result: Mutex<FeedPage?>
    /// What `page` answers, and whose cards `positions` and `sharedCards` name (`setPageResult` changes it, as another instance's post would).
    var pageResult: FeedPage? { self.result.withLock { $0 } }
    let reportOutcome: ReportOutcome
    let marks: @Sendable (UUID) -> ViewerMarks
    /// How many expired stories the next sweep reports deleted.
    let storiesToSweep = Mutex(0)
    /// While true, reads of shared cards are recorded and then wait (a read on its way).
    let cardReadsHeld = Mutex(false)
    /// The located top-level cards the nearby reads answer from (as everyone sees them), any order.
    let located: Mutex<[NearbyChunk.Entry]>

    init(
        createOutcome: @escaping @Sendable (NewCard) -> CreateCardOutcome = { .created($0.asPosted) },
        pageResult: FeedPage? = FeedPage(cards: [], next: nil),
        reportOutcome: ReportOutcome = .reported, marks: @escaping @Sendable (UUID) -> ViewerMarks = { _ in ViewerMarks(liked: [:], blocked: false) },
        located: [NearbyChunk.Entry] = []
    ) {
        self.createOutcome = createOutcome
        self.result = Mutex(pageResult)
        self.reportOutcome = reportOutcome
        self.marks = marks
        self.located = Mutex(located)
    }

    /// The nearby feed as its definition says, by brute force: every located card whose cell
    /// centre is within the radius, newest first, below the position, with its exact distance.
    func nearby(around location: GeoLocation, radius: NearbyRadius, after position: FeedPosition?) -> [(entry: NearbyChunk.Entry, distance: Double)] {
        self.located.withLock { $0 }
            .map { (entry: $0, distance: NearbyCover.haversine(location.latitude, location.longitude, $0.centre.latitude, $0.centre.longitude)) }
            .filter { row in row.distance <= radius.metres && (position.map { $0.precedes(row.entry.position) } ?? true) }
            .sorted { $0.entry.position.precedes($1.entry.position) }
    }

    func setPageResult(_ page: FeedPage?) {
        self.result.withLock { $0 = page }
    }

    func create(_ card: NewCard, idempotency: IdempotencyRecord?) async throws -> CreateCardOutcome {
        self.calls.withLock { $0.created.append((card, idempotency)) }
        return self.createOutcome(card)
    }

    /// Records the read; no card is found (a test of a card read for its viewer checks that it was asked).
    func card(id: UUID, viewer: UUID) async throws -> Card? {
        self.calls.withLock { $0.details.append((id, viewer)) }
        return nil
    }
    func delete(cardID: UUID, by accountID: UUID) async throws -> DeleteCardOutcome { .notFound }
    func setLike(_ liked: Bool, cardID: UUID, by accountID: UUID) async throws -> LikeState? { LikeState(liked: liked, likeCount: liked ? 1 : 0) }

    /// A source of each kind the feed's real one is (`PostgresCardRepository.source(for:)`).
    func source(for feed: Feed) -> any FeedSource {
        switch feed {
        case .following: PositionsSource(repository: self, feed: feed, positionsAreShared: false)
        case .latest, .tag, .author, .popular: PositionsSource(repository: self, feed: feed, positionsAreShared: true)
        case .nearby(let location, let radius): NearbySource(repository: self, feed: feed, location: location, radius: radius)
        case .comments, .commentsBy: PlainSource(repository: self, feed: feed)
        }
    }

    func page(of feed: Feed, after position: FeedPosition?, limit: Int, viewer: UUID) -> FeedPage? {
        self.calls.withLock { $0.pages.append((feed, position, limit)) }
        if case .nearby(let location, let radius) = feed {
            let rows = self.nearby(around: location, radius: radius, after: position).prefix(limit + 1)
            let shown = rows.prefix(limit)
            return FeedPage(
                cards: shown.map { $0.entry.card.measured($0.distance).seen(by: viewer, liked: false) },
                next: rows.count > limit ? shown.last?.entry.position : nil)
        }
        return self.pageResult
    }

    /// The cards of `pageResult` and of `located` among `ids`, as everyone sees them.
    func sharedCards(_ ids: [UUID]) async throws -> [Card] {
        self.calls.withLock { $0.cardReads.append(ids) }
        while self.cardReadsHeld.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        let known = (self.pageResult?.cards ?? []) + self.located.withLock { $0 }.map(\.card)
        return ids.compactMap { id in known.first { $0.id == id }?.seen(by: PostgresNobody.id, liked: false) }
    }

    /// The positions of `pageResult`'s cards below `position`, at most `limit + 1`, whatever the feed.
    func positions(of feed: Feed, after position: FeedPosition?, limit: Int) -> [FeedPosition] {
        self.calls.withLock { $0.positionReads.append((feed, position, limit)) }
        let positions = (self.pageResult?.cards ?? []).map {
            FeedPosition(createdAtMicros: Int64($0.createdAt.timeIntervalSince1970 * 1_000_000), id: $0.id)
        }
        return Array(positions.filter { position?.precedes($0) ?? true }.prefix(limit + 1))
    }

    func viewerMarks(of viewer: UUID, cards: [UUID], authors: [UUID]) async throws -> ViewerMarks {
        self.calls.withLock { $0.marks.append(viewer) }
        return self.marks(viewer)
    }

    /// The viewer's `marks` as their book: every card they liked (nil beyond `limit`).
    func likeBook(of viewer: UUID, limit: Int) async throws -> ViewerMarks? {
        self.calls.withLock { $0.books.append(viewer) }
        let marks = self.marks(viewer)
        return marks.liked.count > limit ? nil : ViewerMarks(liked: marks.liked, blocked: false, guarded: marks.guarded || marks.blocked)
    }

    func nearbyChunks(_ keys: [NearbyChunk.Key]) -> [NearbyChunk] {
        self.calls.withLock { $0.chunkReads.append(keys) }
        let located = self.located.withLock { $0 }.map { (key: GeoCell(containing: $0.centre).key, entry: $0) }
        return keys.map { key in
            let entries = located.filter { row in row.key.hasPrefix(key.prefix) && (key.after.map { $0.precedes(row.entry.position) } ?? true) }
                .map(\.entry).sorted { $0.position.precedes($1.position) }
            return NearbyChunk(entries: Array(entries.prefix(key.size)), size: key.size)
        }
    }

    func refreshPopularRanking(limit: Int, rescan: Bool) async throws {}
    func sweepExpiredStories(limit: Int) async throws -> Int {
        self.storiesToSweep.withLock { count in
            defer { count = 0 }
            return min(count, limit)
        }
    }
    func purgeIdempotencyKeys(limit: Int) async throws -> Int { 0 }

    func vote(_ ballot: Ballot, cardID: UUID, by voter: UUID) async throws -> VoteOutcome {
        self.calls.withLock { $0.ballots.append((cardID, voter, ballot)) }
        return self.voteOutcome.withLock { $0 }
    }

    func closeDuePolls(limit: Int) async throws -> [UUID] { [] }

    func report(cardID: UUID, by reporter: UUID, reason: ReportReason, at time: Date, policy: ModerationPolicy) async throws -> ReportOutcome {
        self.calls.withLock { $0.reports.append((cardID, reporter, reason, policy)) }
        return self.reportOutcome
    }
}

/// A feed of the recording repository read exactly.
struct PlainSource: FeedSource {
    let repository: RecordingCardRepository
    let feed: Feed

    func page(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        self.repository.page(of: self.feed, after: position, limit: limit, viewer: viewer)
    }
}

/// A feed of the recording repository whose pages are made from kept cards.
struct PositionsSource: PositionSource {
    let repository: RecordingCardRepository
    let feed: Feed
    let positionsAreShared: Bool

    func page(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        self.repository.page(of: self.feed, after: position, limit: limit, viewer: viewer)
    }

    func positions(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> [FeedPosition] {
        self.repository.positions(of: self.feed, after: position, limit: limit)
    }
}

/// The recording repository's nearby feed.
struct NearbySource: ChunkSource {
    let repository: RecordingCardRepository
    let feed: Feed
    let location: GeoLocation
    let radius: NearbyRadius

    func page(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        self.repository.page(of: self.feed, after: position, limit: limit, viewer: viewer)
    }

    func chunks(_ keys: [NearbyChunk.Key]) async throws -> [NearbyChunk] { self.repository.nearbyChunks(keys) }
}
