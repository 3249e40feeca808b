import Foundation

/// Storage for cards, comment cards and likes. Every method is atomic; counters (likes,
/// comment cards, an author's cards) change in the same transaction as what they count.
///
/// Only live cards are ever returned: not deleted, not an expired story.
public protocol CardRepository: Sendable {
    /// Creates the card, counts each of its tags' usage, and counts a comment card on its live
    /// parent (a top-level card on its author), all or nothing.
    /// With an idempotency record, a second call with the same key replays the first card.
    func create(_ card: NewCard, idempotency: IdempotencyRecord?) async throws -> CreateCardOutcome
    /// The card as `viewer` sees it.
    func card(id: UUID, viewer: UUID) async throws -> Card?
    /// Deletes a card for its author, or a comment card for the author of the card it answers;
    /// its comment cards stay.
    func delete(cardID: UUID, by accountID: UUID) async throws -> DeleteCardOutcome
    /// Likes or unlikes, idempotently. Nil when the card does not exist (or is not live).
    func setLike(_ liked: Bool, cardID: UUID, by accountID: UUID) async throws -> LikeState?
    /// Where `feed`'s pages come from.
    func source(for feed: Feed) -> any FeedSource
    /// The live cards among `ids` as everyone sees them (`likedByMe` and `isMine` false, blocked
    /// authors' cards included), in any order; the others are left out. One read.
    func sharedCards(_ ids: [UUID]) async throws -> [Card]
    /// Which of `cards` the viewer liked, and whether the viewer and any of `authors` blocked one
    /// another: what turns a shared page into the viewer's. One small read.
    func viewerMarks(of viewer: UUID, cards: [UUID], authors: [UUID]) async throws -> ViewerMarks
    /// Every card the viewer liked, with its like count now (`liked`), when they liked at most
    /// `limit` cards (nil when more), and whether they have any block or report at all (`guarded`;
    /// then `liked` is empty): the book `ViewerMarkCache` keeps. One read.
    func likeBook(of viewer: UUID, limit: Int) async throws -> ViewerMarks?
    /// Computes a new generation of the popular ranking (at most `limit` cards of the last seven
    /// days). A round ranks the candidates the last one kept and what changed since; with
    /// `rescan`, or when those cannot hold the ranking, it reads every card of the week.
    func refreshPopularRanking(limit: Int, rescan: Bool) async throws
    /// Deletes up to `limit` expired stories, correcting the counters that counted them; returns how many.
    func sweepExpiredStories(limit: Int) async throws -> Int
    /// Records `reporter`'s report of a card. The report that reaches `policy.reportThreshold`
    /// distinct reporters hides the card (it counts nowhere from then on: tag usage, its parent's
    /// comment count or its author's card count), restricts its author from posting for the
    /// policy's next length, and notifies the author of both — all in the report's transaction.
    func report(cardID: UUID, by reporter: UUID, reason: ReportReason, at time: Date, policy: ModerationPolicy) async throws -> ReportOutcome
    /// Forgets `Idempotency-Key` records older than their lifetime, at most `limit`; returns how many went.
    func purgeIdempotencyKeys(limit: Int) async throws -> Int
    /// Casts, changes or (with `.none`) withdraws `voter`'s ballot on the poll of a live card they
    /// may see, moving its counts by the difference in the same transaction.
    func vote(_ ballot: Ballot, cardID: UUID, by voter: UUID) async throws -> VoteOutcome
    /// Closes up to `limit` polls whose time has come, each once (several instances may run this at
    /// once), and tells each one's voters and author (`poll_closed`) in the same transaction;
    /// returns the cards whose polls closed.
    func closeDuePolls(limit: Int) async throws -> [UUID]
}

/// What a ballot change came to.
public enum VoteOutcome: Sendable, Equatable {
    /// The poll after the change, with the voter's ballot.
    case voted(Poll)
    /// No live card the voter may see, or no poll on it.
    case notFound
    /// The author cannot vote on their own poll.
    case author
    case closed
    /// An option the poll does not have, or more than one on a single-choice poll.
    case invalid
}

/// A card about to be stored.
public struct NewCard: Sendable, Equatable {
    public let id: UUID
    public let author: UserSummary
    public let parentID: UUID?
    public let draft: CardDraft
    public let createdAt: Date
    /// When its poll closes (`PollDraft.closing`); nil without a poll or when it never closes.
    public let pollClosesAt: Date?

    public init(id: UUID, author: UserSummary, parentID: UUID?, draft: CardDraft, createdAt: Date, pollClosesAt: Date? = nil) {
        self.id = id
        self.author = author
        self.parentID = parentID
        self.draft = draft
        self.createdAt = createdAt
        self.pollClosesAt = pollClosesAt
    }

    public var expiresAt: Date? { self.draft.expiry(postedAt: self.createdAt) }

    /// The card as its author sees it right after posting: no likes, no comment cards yet.
    public var asPosted: Card {
        Card(
            id: self.id, content: self.draft.content.text, font: self.draft.font, background: self.draft.background.reference,
            tags: self.draft.tags.map(\.name), author: self.author, parentID: self.parentID, parentDeleted: false, createdAt: self.createdAt,
            expiresAt: self.expiresAt, likeCount: 0, commentCount: 0, likedByMe: false, isMine: true, distanceMeters: nil,
            poll: self.draft.poll.map { poll in
                Poll(
                    options: poll.options.map { Poll.Option(text: $0, voteCount: 0) }, multiple: poll.multiple, voterCount: 0, myVotes: .none,
                    closesAt: self.pollClosesAt, closed: false)
            })
    }
}

/// An `Idempotency-Key` and the canonical request it was first used with.
public struct IdempotencyRecord: Sendable, Equatable {
    /// Keys are remembered this long.
    public static let lifetime: TimeInterval = 24 * 60 * 60
    public static let maximumKeyLength = 64

    public let key: String
    public let request: String

    /// - Throws: `422 validation_failed` on `Idempotency-Key` when the key is empty or longer than 64 characters.
    public init(key: String, request: String) throws(SoomError) {
        guard (1...Self.maximumKeyLength).contains(key.count), key.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) else {
            throw .validationFailed(field: "Idempotency-Key", "Idempotency-Key must be 1–64 visible ASCII characters.")
        }
        self.key = key
        self.request = request
    }
}

public enum CreateCardOutcome: Sendable, Equatable {
    case created(Card)
    /// The same key and body were seen before: the first card again, nothing created.
    case replayed(Card)
    /// The same key and body were seen before, but that card has been deleted since.
    case replayedCardGone
    case idempotencyKeyReused
    /// The background names an image that does not exist or was uploaded by someone else.
    case backgroundNotOwned
    /// The card to answer does not exist (any more).
    case parentNotFound
    /// The author's account is gone (withdrawn while the request was on its way).
    case authorNotFound
    /// The author may not post until then (their card was hidden after reports).
    case authorRestricted(until: Date)
}

public enum DeleteCardOutcome: Sendable, Equatable {
    case deleted
    case notFound
    case notOwner
}

/// `{"liked","likeCount"}`.
public struct LikeState: Sendable, Equatable {
    public let liked: Bool
    public let likeCount: Int

    public init(liked: Bool, likeCount: Int) {
        self.liked = liked
        self.likeCount = likeCount
    }
}
