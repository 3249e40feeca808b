import Foundation
import PostgresNIO

/// The popular ranking's round (`refreshPopularRanking`): the `limit` best-scored live top-level
/// cards of the last 7 days, by score (5 a like, 3 a comment card), then newest first.
///
/// A round does not read every card of the week (migration 0016). It ranks the *candidates*:
/// - the last round's candidates: every card whose key (score, created_at, id) was above that
///   round's threshold (at most `candidateCount` of them; no threshold: every card);
/// - the cards whose score rose or that became visible again since (`popular_touched`, filled by
///   a trigger on `cards`, so that no write path can forget it);
/// - the cards posted since the last round (with a minute's margin for transactions that were
///   still open then; a request's transaction lasts at most its 10-second deadline).
///
/// Why that is exact: a card outside those three was below the threshold last round and its score
/// has not risen since, so it is still below; keeping only candidates above the threshold keeps
/// exactly every card above it. So when at least `limit` candidates are above the threshold, they
/// are the ranking. When fewer are (many of the best cards expired, were hidden or left the week
/// within one round), after more changes than a rescan costs (`lastRound`; a statement posting
/// more than a thousand cards makes the next round a rescan directly), and on each
/// instance's first round and every `rescanInterval`, a round
/// reads every card of the week instead (a *rescan*), which also covers what the trigger cannot
/// see: an import with triggers off, or `popular_touched` emptied by a crash (it is unlogged).
///
/// Keeping more candidates than the ranking shows (`candidateCount`, 5 × `limit`) means the
/// threshold sits well below the last ranked card, so cards leaving the ranking are replaced from
/// the candidates rather than by a rescan.
enum PopularRankingStatements {
    /// How often a round reads every card of the week regardless, in seconds.
    static let rescanInterval = 300
    static let rescanAge = "interval '\(rescanInterval) seconds'"

    /// How many candidates a round keeps for the next one, for a ranking of `limit`.
    static func candidateCount(limit: Int) -> Int { limit * 5 }

    /// Where the last round left off: whether a rescan is due, then the last threshold's score,
    /// micros and ID (all NULL: no threshold, every card of the week is a candidate). No row: there
    /// was no round yet, so a rescan is due.
    ///
    /// A rescan is also due when the last rescan is `rescanInterval` old, or when more cards rose
    /// since the last round than a tenth of all cards plus a thousand (a bulk import, or a quarter
    /// of an hour of nobody ranking): reading the week in one pass is then cheaper than a probe per
    /// change. The changes are counted only that far.
    static let lastRound: PostgresQuery = """
        WITH bound AS (SELECT greatest(reltuples, 0)::int8 / 10 + 1000 AS changes FROM pg_class WHERE oid = 'cards'::regclass)
        SELECT p.rescanned_at <= now() - \(unescaped: rescanAge)
                   OR (SELECT count(*) FROM (SELECT FROM popular_touched LIMIT (SELECT changes FROM bound)) t) >= (SELECT changes FROM bound),
               p.threshold_score, (extract(epoch FROM p.threshold_created_at) * 1000000)::int8, p.threshold_id
        FROM popular_candidates p
        """

    /// The week's live top-level cards (`c`) that someone liked or answered: a card nobody reacted
    /// to (score 0) is not popular, however few cards the week has.
    static let eligible =
        "c.parent_id IS NULL AND c.created_at > now() - interval '7 days' AND \(CardRow.live) AND (c.like_count > 0 OR c.comment_count > 0)"

    static let score = "5 * c.like_count + 3 * c.comment_count"

    /// The columns of a ranked card (`decode`), in ranking order: ID, score, `CardRow.micros`.
    static let ranked = "c.id, \(score) AS score, \(CardRow.micros) AS micros"
    static let order = "ORDER BY \(score) DESC, c.created_at DESC, c.id DESC"

    /// A round from the candidates: the best `fetch` cards above the last threshold. Claims the
    /// changes recorded since the last round (its snapshot's; later ones stay for the next).
    /// Each card of the pool is one probe of `cards_pkey` (`LATERAL … OFFSET 0`), and the newest
    /// cards one range of `cards_latest_idx` (bounded on both sides, so that a generic plan prices
    /// it as a narrow range rather than a third of the table): the planner otherwise hashed the
    /// pool against a scan of every card, and scanned every card for the newest.
    static func fromCandidates(fetch: Int) -> PostgresQuery {
        """
        WITH touched AS (DELETE FROM popular_touched RETURNING card_id),
        last AS (SELECT computed_at, threshold_score, threshold_created_at, threshold_id FROM popular_candidates),
        pool AS MATERIALIZED (
            SELECT unnest(card_ids) AS id FROM popular_candidates
            UNION SELECT card_id FROM touched
            UNION SELECT c.id FROM cards c
                  WHERE c.parent_id IS NULL AND c.created_at >= (SELECT computed_at FROM popular_candidates) - interval '1 minute'
                    AND c.created_at <= 'infinity')
        SELECT c.* FROM pool, last, LATERAL (
            SELECT \(unescaped: ranked), c.created_at FROM cards c
            WHERE c.id = pool.id AND \(unescaped: eligible)
              AND (last.threshold_score IS NULL
                   OR (\(unescaped: score), c.created_at, c.id) > (last.threshold_score, last.threshold_created_at, last.threshold_id))
            OFFSET 0) c
        ORDER BY c.score DESC, c.created_at DESC, c.id DESC LIMIT \(fetch)
        """
    }

    /// A rescan: the best `fetch` cards of the whole week. Drops the recorded changes: it reads them all.
    static func rescan(fetch: Int) -> PostgresQuery {
        """
        WITH touched AS (DELETE FROM popular_touched)
        SELECT \(unescaped: ranked) FROM cards c WHERE \(unescaped: eligible) \(unescaped: order) LIMIT \(fetch)
        """
    }

    /// A new generation of the ranking: `ranking`'s cards and scores, in rank order.
    static func insertGeneration(_ ranking: ArraySlice<Ranked>) -> PostgresQuery {
        let (cards, scores) = (ranking.map(\.id), ranking.map { Int32(clamping: $0.score) })
        return """
            WITH generation AS (INSERT INTO popular_generations (computed_at) VALUES (now()) RETURNING generation)
            INSERT INTO popular_rankings (generation, rank, card_id, score)
            SELECT g.generation, r.rank, r.card_id, r.score
            FROM generation g, unnest(\(cards)::uuid[], \(scores)::int4[]) WITH ORDINALITY AS r(card_id, score, rank)
            """
    }

    /// The candidates for the next round: `round`'s, with its threshold (none: every card of the
    /// week is a candidate), and whether this round was a rescan.
    static func storeCandidates(_ round: Round, rescanned: Bool) -> PostgresQuery {
        let (cards, threshold) = (round.candidates.map(\.id), round.threshold)
        return """
            INSERT INTO popular_candidates AS p (computed_at, rescanned_at, threshold_score, threshold_created_at, threshold_id, card_ids)
            VALUES (now(), now(), \(threshold.map { Int32(clamping: $0.score) }),
                    timestamptz 'epoch' + \(threshold?.micros)::int8 * interval '1 microsecond', \(threshold?.id), \(cards))
            ON CONFLICT (only_row) DO UPDATE SET
                computed_at = excluded.computed_at,
                rescanned_at = CASE WHEN \(rescanned) THEN excluded.rescanned_at ELSE p.rescanned_at END,
                threshold_score = excluded.threshold_score, threshold_created_at = excluded.threshold_created_at,
                threshold_id = excluded.threshold_id, card_ids = excluded.card_ids
            """
    }

    /// Generations older than an hour go, but the newest: pages of one stay stable for an hour.
    static let deleteOldGenerations: PostgresQuery = """
        DELETE FROM popular_generations WHERE computed_at < now() - interval '1 hour'
        AND generation < (SELECT max(generation) FROM popular_generations)
        """

    /// A ranked card: its ID and its key.
    struct Ranked: Sendable, Equatable {
        let id: UUID
        let score: Int
        let micros: Int64
    }

    static func decode(_ row: PostgresRow) throws -> Ranked {
        var cells = RowCells(row)
        return Ranked(id: try cells.next(UUID.self), score: try cells.next(Int.self), micros: try cells.next(Int64.self))
    }

    /// What a round found: the ranking and the next round's candidates and threshold.
    struct Round: Equatable {
        let ranking: ArraySlice<Ranked>
        let candidates: ArraySlice<Ranked>
        /// Every card above it is a candidate; nil: every card of the week is.
        let threshold: Ranked?

        /// A round from the candidates: `ranked` is the best `candidateCount + 1` cards above
        /// `threshold`, in order. Nil when they cannot be trusted to hold the ranking: the threshold
        /// leaves fewer than `limit` cards above it, so cards below it may belong in the ranking
        /// (without a threshold every card of the week was a candidate: always trusted).
        init?(ranked: [Ranked], above threshold: Ranked?, limit: Int) {
            if threshold != nil, ranked.count < limit { return nil }
            self.init(ranked, threshold: threshold, limit: limit)
        }

        /// A rescan's round (`ranked`: the week's best `candidateCount + 1` cards, in order): exact
        /// however few they are.
        init(rescanned ranked: [Ranked], limit: Int) {
            self.init(ranked, threshold: nil, limit: limit)
        }

        private init(_ ranked: [Ranked], threshold: Ranked?, limit: Int) {
            let count = PopularRankingStatements.candidateCount(limit: limit)
            self.ranking = ranked.prefix(limit)
            self.candidates = ranked.prefix(count)
            // More than the candidates kept: the first one left out becomes the threshold (the
            // cards above it are exactly those kept).
            self.threshold = ranked.count > count ? ranked[count] : threshold
        }
    }
}
