import Metrics
import Synchronization

/// What the service does for people, as Prometheus counters (`soom_*_total` at `/metrics`), and
/// every reactor's mutations by kind. Counted where the effect happened: in `mutate`, after the
/// use case succeeded.
enum BusinessMetrics {
    static let cardsPosted = Counter(label: "soom_cards_posted", dimensions: [("kind", "card")])
    static let commentCardsPosted = Counter(label: "soom_cards_posted", dimensions: [("kind", "comment")])
    /// `PUT /v1/cards/{id}/like` answered `liked` (a repeated like is counted again: the request is idempotent).
    static let likes = Counter(label: "soom_likes")
    static let signUps = Counter(label: "soom_sign_ups")
    static let reports = Counter(label: "soom_reports")
    static let cardsHidden = Counter(label: "soom_cards_hidden")

    private static let mutations = Mutex<[String: Counter]>([:])

    /// Counts a reactor mutation under `soom_reactor_mutations_total{reactor, mutation}`: `kind` is
    /// the enum case's name only (`Reactor.kind(of:)`), never its payload.
    static func count(_ kind: String, of reactor: String) {
        let key = reactor + "/" + kind
        let counter = Self.mutations.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(label: "soom_reactor_mutations", dimensions: [("reactor", reactor), ("mutation", kind)])
            counters[key] = counter
            return counter
        }
        counter.increment()
    }
}
