import Metrics

/// What the service does for people, as Prometheus counters (`soom_*_total` at `/metrics`): a
/// case a fact. Counted from the mutations that say it happened (the reactor's `counter(for:)`,
/// applied by `Reactor.transform`), once the use case succeeded.
///
/// A case names its counter without making it: a counter made before the metrics system is
/// bootstrapped (by a test that only compares facts, say) would count into nothing for the
/// life of the process.
public enum BusinessMetrics: Sendable, Equatable {
    case cardPosted
    case commentCardPosted
    /// `PUT /v1/cards/{id}/like` answered `liked` (a repeated like is counted again: the request is idempotent).
    case like
    /// `PUT /v1/cards/{id}/poll/vote` answered with a ballot (a repeated one is counted again).
    case ballot
    case signUp
    case report
    case cardHidden

    /// Adds one to the fact's counter.
    public func increment() {
        switch self {
        case .cardPosted: Self.cardsPosted.increment()
        case .commentCardPosted: Self.commentCardsPosted.increment()
        case .like: Self.likes.increment()
        case .ballot: Self.ballots.increment()
        case .signUp: Self.signUps.increment()
        case .report: Self.reports.increment()
        case .cardHidden: Self.cardsHidden.increment()
        }
    }

    private static let cardsPosted = Counter(label: "soom_cards_posted", dimensions: [("kind", "card")])
    private static let commentCardsPosted = Counter(label: "soom_cards_posted", dimensions: [("kind", "comment")])
    private static let likes = Counter(label: "soom_likes")
    private static let ballots = Counter(label: "soom_ballots")
    private static let signUps = Counter(label: "soom_sign_ups")
    private static let reports = Counter(label: "soom_reports")
    private static let cardsHidden = Counter(label: "soom_cards_hidden")
}
