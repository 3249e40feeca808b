import Metrics

/// What the service does for people, as Prometheus counters (`soom_*_total` at `/metrics`).
/// Counted from the mutations that say it happened (the reactor's `counter(for:)`, applied by
/// `Reactor.transform`), once the use case succeeded.
enum BusinessMetrics {
    static let cardsPosted = Counter(label: "soom_cards_posted", dimensions: [("kind", "card")])
    static let commentCardsPosted = Counter(label: "soom_cards_posted", dimensions: [("kind", "comment")])
    /// `PUT /v1/cards/{id}/like` answered `liked` (a repeated like is counted again: the request is idempotent).
    static let likes = Counter(label: "soom_likes")
    static let signUps = Counter(label: "soom_sign_ups")
    static let reports = Counter(label: "soom_reports")
    static let cardsHidden = Counter(label: "soom_cards_hidden")
}
