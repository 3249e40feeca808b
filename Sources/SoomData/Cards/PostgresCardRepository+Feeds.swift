import Foundation
import PostgresNIO
import SoomDomain

extension PostgresCardRepository {
    /// One SQL round trip per page (a second only to tell an empty list from a missing subject).
    /// Asks for one card more than the page to know whether another page follows.
    public func page(of feed: Feed, after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        switch feed {
        case .latest:
            return try await self.preparedPage(
                after: position, limit: limit, first: CardStatements.LatestFirst(viewer: viewer, limit: limit + 1),
                after: { CardStatements.LatestAfter(viewer: viewer, position: $0, limit: limit + 1) })
        case .tag(let tag):
            return try await self.preparedPage(
                after: position, limit: limit, first: TagStatements.FeedFirst(viewer: viewer, key: tag.key, limit: limit + 1),
                after: { TagStatements.FeedAfter(viewer: viewer, key: tag.key, position: $0, limit: limit + 1) })
        case .following:
            // Fan-out on read; how a page is found is described at `FollowingStatements`.
            return try await self.preparedPage(
                after: position, limit: limit, first: FollowingStatements.First(viewer: viewer, limit: limit + 1),
                after: { FollowingStatements.After(viewer: viewer, position: $0, limit: limit + 1) })
        case .nearby(let location, let radius):
            return try await self.nearbyPage(around: location, radius: radius, after: position, limit: limit, viewer: viewer)
        case .popular, .author, .comments:
            break
        }
        var builder = SQLBuilder()
        let viewerParameter = builder.bind(viewer)
        let from = "FROM cards c \(CardRow.joins(viewer: viewerParameter))"
        var conditions = [CardRow.visible(to: viewerParameter)]
        switch feed {
        case .author(let id):
            conditions.append("c.author_id = \(builder.bind(id)) AND c.parent_id IS NULL")
        case .comments(let parent):
            conditions.append("c.parent_id = \(builder.bind(parent))")
        case .popular:
            return try await self.popularPage(after: position, limit: limit, viewer: viewer)
        case .latest, .tag, .following, .nearby:
            preconditionFailure("the latest, tag, following and nearby feeds are read by prepared statements above")
        }
        if let position {
            conditions.append(CardRow.after(position, &builder))
        }
        let limitParameter = builder.bind(limit + 1)
        builder.append(
            "SELECT \(CardRow.select(viewer: viewerParameter)) \(from) WHERE \(conditions.joined(separator: " AND ")) "
                + "ORDER BY c.created_at DESC, c.id DESC LIMIT \(limitParameter)")
        let rows = try await self.database.rows(builder.query).map(CardRow.decode)
        if rows.isEmpty, !(try await self.subjectVisible(of: feed, viewer: viewer)) { return nil }
        return Self.page(rows, limit: limit)
    }

    /// The account no one is (account IDs are random version-4 UUIDs, never all zeros): a shared
    /// page's cards are stored as it sees them, with `likedByMe` and `isMine` false.
    static let nobody = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    public func sharedPage(of feed: Feed, after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> (
        page: FeedPage, marks: ViewerMarks
    ) {
        let rows: [(card: Card, micros: Int64, blocked: Bool)]
        switch feed {
        case .latest:
            rows = try await self.sharedRows(
                after: position, first: CardStatements.LatestFirst(viewer: viewer, limit: limit + 1),
                after: { CardStatements.LatestAfter(viewer: viewer, position: $0, limit: limit + 1) })
        case .tag(let tag):
            rows = try await self.sharedRows(
                after: position, first: TagStatements.FeedFirst(viewer: viewer, key: tag.key, limit: limit + 1),
                after: { TagStatements.FeedAfter(viewer: viewer, key: tag.key, position: $0, limit: limit + 1) })
        case .popular, .nearby, .author, .comments, .following:
            preconditionFailure("only the latest and tag feeds are shared (FeedPageCache.Key)")
        }
        let page = Self.page(rows.map { ($0.card.seen(by: Self.nobody, liked: false), $0.micros) }, limit: limit)
        let shown = rows.prefix(limit)
        let liked = Dictionary(shown.filter(\.card.likedByMe).map { ($0.card.id, $0.card.likeCount) }, uniquingKeysWith: { first, _ in first })
        let marks = ViewerMarks(liked: liked, blocked: shown.contains { $0.blocked })
        return (page, marks)
    }

    private func sharedRows<First: SharedPageStatement, After: SharedPageStatement>(
        after position: FeedPosition?, first: First, after: (FeedPosition) -> After
    ) async throws -> [(card: Card, micros: Int64, blocked: Bool)] {
        if let position {
            try await self.database.rows(SharedPageRead(base: after(position)))
        } else {
            try await self.database.rows(SharedPageRead(base: first))
        }
    }

    public func sharedCards(_ ids: [UUID]) async throws -> [Card] {
        guard !ids.isEmpty else { return [] }
        return try await self.database.rows(CardStatements.Shared(ids: ids, nobody: Self.nobody)).map(\.card)
    }

    public func positions(of feed: Feed, after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> [FeedPosition] {
        switch (feed, position) {
        case (.following, nil):
            // The inbox alone when it holds the whole page (`FollowingStatements.inboxSQL`), else the full statement.
            let boxed = try await self.database.rows(FollowingStatements.InboxFirst(viewer: viewer, limit: limit + 1))
            if boxed.count > limit { return boxed }
            return try await self.database.rows(PositionsRead(base: FollowingStatements.First(viewer: viewer, limit: limit + 1)))
        case (.following, let position?):
            let boxed = try await self.database.rows(FollowingStatements.InboxAfter(viewer: viewer, position: position, limit: limit + 1))
            if boxed.count > limit { return boxed }
            return try await self.database.rows(PositionsRead(base: FollowingStatements.After(viewer: viewer, position: position, limit: limit + 1)))
        case (.author(let author), nil):
            return try await self.database.rows(CardStatements.AuthorPositionsFirst(author: author, limit: limit + 1))
        case (.author(let author), let position?):
            return try await self.database.rows(CardStatements.AuthorPositionsAfter(author: author, position: position, limit: limit + 1))
        case (.popular, _):
            return try await self.database.rows(Self.popularQuery(for: nil, after: position, limit: limit))
                .map { row in
                    var cells = RowCells(row)
                    let id = try cells.next(UUID.self)
                    let micros = try cells.next(Int64.self)
                    let rank = try cells.next(Int.self)
                    let ranking = FeedPosition.Ranking(generation: try cells.next(Int64.self), rank: rank)
                    return FeedPosition(createdAtMicros: micros, id: id, ranking: ranking)
                }
        case (.latest, _), (.tag, _), (.nearby, _), (.comments, _):
            preconditionFailure("only the following, author and popular feeds are read by positions (Feed.isReadFromCards)")
        }
    }

    public func viewerMarks(of viewer: UUID, cards: [UUID], authors: [UUID]) async throws -> ViewerMarks {
        // One row always (an aggregate); none would be a broken statement, and is read as guarded.
        try await self.database.rows(CardStatements.ViewerMarks(viewer: viewer, cards: cards, authors: authors)).first
            ?? ViewerMarks(liked: [:], blocked: false, guarded: true)
    }

    public func nearbyChunks(_ keys: [NearbyChunk.Key]) async throws -> [NearbyChunk] {
        guard let length = keys.first?.prefix.count else { return [] }
        precondition(keys.allSatisfy { $0.prefix.count == length }, "one read holds chunks of one prefix length")
        let rows =
            switch length {
            case 3: try await self.database.rows(NearbyStatements.Chunks<PrefixLength3>(keys: keys, nobody: Self.nobody))
            case 4: try await self.database.rows(NearbyStatements.Chunks<PrefixLength4>(keys: keys, nobody: Self.nobody))
            case 5: try await self.database.rows(NearbyStatements.Chunks<PrefixLength5>(keys: keys, nobody: Self.nobody))
            case 6: try await self.database.rows(NearbyStatements.Chunks<PrefixLength6>(keys: keys, nobody: Self.nobody))
            default: preconditionFailure("nearby chunks are read for prefixes of length 3 to 6")
            }
        var entries = Array(repeating: [NearbyChunk.Entry](), count: keys.count)
        for row in rows { entries[row.key].append(row.entry) }
        return zip(keys, entries).map { NearbyChunk(entries: $1, size: $0.size) }
    }

    /// A page from `limit + 1` newest-first rows: the extra row only says that another page follows.
    /// A page read by a prepared statement: `first` without a cursor, `after(position)` below one.
    private func preparedPage<First: CardRowStatement, After: CardRowStatement>(
        after position: FeedPosition?, limit: Int, first: First, after: (FeedPosition) -> After
    ) async throws -> FeedPage {
        let rows = if let position { try await self.database.rows(after(position)) } else { try await self.database.rows(first) }
        return Self.page(rows, limit: limit)
    }

    static func page(_ rows: [(card: Card, micros: Int64)], limit: Int) -> FeedPage {
        let page = rows.prefix(limit)
        let next = rows.count > limit ? page.last.map { FeedPosition(createdAtMicros: $0.micros, id: $0.card.id) } : nil
        return FeedPage(cards: page.map(\.card), next: next)
    }

    /// Whether the feed's subject exists for the viewer: an account that did not block them, a
    /// parent card they may see.
    private func subjectVisible(of feed: Feed, viewer: UUID) async throws -> Bool {
        var builder = SQLBuilder()
        let viewerParameter = builder.bind(viewer)
        switch feed {
        case .latest, .popular, .nearby, .tag, .following:
            return true
        case .author(let id):
            builder.append(
                "SELECT 1 FROM accounts a WHERE a.id = \(builder.bind(id)) AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = a.id AND b.blocked_id = \(viewerParameter))"
            )
        case .comments(let parent):
            builder.append("SELECT 1 FROM cards c WHERE c.id = \(builder.bind(parent)) AND \(CardRow.visible(to: viewerParameter))")
        }
        return !(try await self.database.rows(builder.query)).isEmpty
    }

    /// A page of the nearby feed (`NearbyStatements`): the statement for the cover's prefix length.
    private func nearbyPage(around location: GeoLocation, radius: NearbyRadius, after position: FeedPosition?, limit: Int, viewer: UUID) async throws
        -> FeedPage
    {
        let cover = NearbyCover(around: location, radius: radius)
        func read<Length: PrefixLength>(_: Length.Type) async throws -> FeedPage {
            try await self.preparedPage(
                after: position, limit: limit,
                first: NearbyStatements.First<Length>(viewer: viewer, location: location, radius: radius, cover: cover, limit: limit + 1),
                after: {
                    NearbyStatements.After<Length>(viewer: viewer, location: location, radius: radius, cover: cover, position: $0, limit: limit + 1)
                })
        }
        switch cover.precision {
        case 6...: return try await read(PrefixLength6.self)
        case 5: return try await read(PrefixLength5.self)
        case 4: return try await read(PrefixLength4.self)
        case 3: return try await read(PrefixLength3.self)
        default:
            let query = NearbyStatements.polarScan(viewer: viewer, location: location, radius: radius, after: position, limit: limit + 1)
            return Self.page(try await self.database.rows(query).map(CardRow.decode), limit: limit)
        }
    }

    /// A page of the latest ranking generation (or of the cursor's, while it is kept), in rank order.
    /// The popular feed's rows after `position`: of the latest ranking generation (or the
    /// cursor's, while it is kept), in rank order, at most `limit + 1`, each ending with `r.rank`
    /// and `r.generation`. For a viewer, the cards visible to them as `CardRow.select` reads them;
    /// for nil, every live card's ID and microseconds (`positions`).
    private static func popularQuery(for viewer: UUID?, after position: FeedPosition?, limit: Int) -> PostgresQuery {
        var builder = SQLBuilder()
        let viewerParameter = viewer.map { builder.bind($0) }
        let generation = builder.bind(position?.ranking?.generation)
        let rank = builder.bind(position?.ranking?.rank ?? 0)
        let limitParameter = builder.bind(limit + 1)
        let (columns, joins, filter) =
            if let viewerParameter {
                (CardRow.select(viewer: viewerParameter), CardRow.joins(viewer: viewerParameter), CardRow.visible(to: viewerParameter))
            } else {
                (CardRow.position, "", CardRow.live)
            }
        builder.append(
            """
            SELECT \(columns), r.rank, r.generation
            FROM popular_rankings r JOIN cards c ON c.id = r.card_id \(joins)
            WHERE r.generation = (SELECT COALESCE(
                    (SELECT generation FROM popular_generations WHERE generation = \(generation)),
                    (SELECT max(generation) FROM popular_generations)))
              AND r.rank > \(rank) AND \(filter)
            ORDER BY r.rank LIMIT \(limitParameter)
            """)
        return builder.query
    }

    private func popularPage(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage {
        let rows = try await self.database.rows(Self.popularQuery(for: viewer, after: position, limit: limit)).map { row in
            let (card, micros) = try CardRow.decode(row)
            // After `CardRow.select`'s columns, by name: the ranking's generation and the card's rank in it.
            let columns = row.makeRandomAccess()
            let ranking = FeedPosition.Ranking(generation: try columns["generation"].decode(Int64.self), rank: try columns["rank"].decode(Int.self))
            return (card, FeedPosition(createdAtMicros: micros, id: card.id, ranking: ranking))
        }
        let page = rows.prefix(limit)
        return FeedPage(cards: page.map(\.0), next: rows.count > limit ? page.last?.1 : nil)
    }

    /// One round of `PopularRankingStatements`: from the candidates, or a rescan of the week when
    /// `rescan` is set, one is due or the candidates do not hold the ranking.
    public func refreshPopularRanking(limit: Int, rescan: Bool) async throws {
        // One instance at a time; the others skip this round.
        try await self.database.transaction(holding: .popularRanking) { connection in
            let logger = self.database.logger
            typealias Statements = PopularRankingStatements
            let fetch = Statements.candidateCount(limit: limit) + 1
            var fromCandidates: Statements.Round?
            if !rescan, let last = try await connection.query(PostgresQuery(unsafeSQL: Statements.lastRound), logger: logger).collect().first {
                var cells = RowCells(last)
                let due = try cells.next(Bool.self)
                let score = try cells.next(Int?.self)
                let micros = try cells.next(Int64?.self)
                let threshold = try cells.next(UUID?.self).map { Statements.Ranked(id: $0, score: score ?? 0, micros: micros ?? 0) }
                if !due {
                    let statement = Self.query(Statements.fromCandidates, fetch)
                    let ranked = try await connection.query(statement, logger: logger).collect().map(Statements.decode)
                    fromCandidates = Statements.Round(ranked: ranked, above: threshold, limit: limit)
                    if fromCandidates == nil {
                        logger.debug(
                            "popular ranking: too few candidates above the threshold, rescanning", metadata: ["candidates": "\(ranked.count)"])
                    }
                }
            }
            let round: Statements.Round
            let rescanned = fromCandidates == nil
            if let fromCandidates {
                round = fromCandidates
            } else {
                let ranked = try await connection.query(Self.query(Statements.rescan, fetch), logger: logger).collect().map(Statements.decode)
                round = Statements.Round(rescanned: ranked, limit: limit)
            }
            var generation = PostgresBindings(capacity: 2)
            generation.append(round.ranking.map(\.id))
            generation.append(round.ranking.map { Int32(clamping: $0.score) })
            try await connection.query(PostgresQuery(unsafeSQL: Statements.insertGeneration, binds: generation), logger: logger)
            var candidates = PostgresBindings(capacity: 5)
            candidates.append(round.candidates.map(\.id))
            candidates.append(round.threshold.map { Int32(clamping: $0.score) })
            candidates.append(round.threshold?.micros)
            candidates.append(round.threshold?.id)
            candidates.append(rescanned)
            try await connection.query(PostgresQuery(unsafeSQL: Statements.storeCandidates, binds: candidates), logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: Statements.deleteOldGenerations), logger: logger)
        }
    }

    private static func query(_ sql: String, _ limit: Int) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(limit)
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    /// One transaction: deletes the expired stories with their counters, then releases their
    /// tags (within a minute of expiry: the job runs every 30 seconds).
    public func sweepExpiredStories(limit: Int) async throws -> Int {
        let logger = self.database.logger
        return try await self.database.transaction { connection in
            // The lock order of every card writer: accounts first (in id order), then cards. A
            // withdrawal holds its account while it deletes that account's cards; taking a story's
            // card first and its author second could wait on it in the opposite order.
            try await connection.query(
                """
                SELECT 1 FROM accounts WHERE id IN (
                    SELECT author_id FROM cards WHERE expires_at <= now() ORDER BY expires_at LIMIT \(limit))
                ORDER BY id FOR NO KEY UPDATE
                """, logger: logger)
            let rows = try await connection.query(
                """
                WITH expired AS (
                    SELECT id FROM cards WHERE expires_at <= now() ORDER BY expires_at LIMIT \(limit) FOR UPDATE SKIP LOCKED),
                deleted AS (
                    DELETE FROM cards WHERE id IN (SELECT id FROM expired)
                    RETURNING id, parent_id, author_id, cardinality(tags) > 0 AS tagged, hidden_at IS NULL AS counted),
                parents AS (
                    UPDATE cards p SET comment_count = p.comment_count - d.n
                    FROM (SELECT parent_id, count(*) AS n FROM deleted WHERE parent_id IS NOT NULL AND counted GROUP BY parent_id) d
                    WHERE p.id = d.parent_id AND p.id NOT IN (SELECT id FROM expired)),
                authors AS (
                    UPDATE accounts a SET card_count = a.card_count - d.n
                    FROM (SELECT author_id, count(*) AS n FROM deleted WHERE parent_id IS NULL AND counted GROUP BY author_id) d
                    WHERE a.id = d.author_id)
                SELECT (SELECT count(*)::int FROM deleted), ARRAY(SELECT id FROM deleted WHERE tagged)
                """, logger: logger
            ).collect()
            let (count, tagged) = try rows[0].decode((Int, [UUID]).self)
            try await TagUsageSQL.release(cardIDs: tagged, on: connection, logger: logger)
            return count
        }
    }
}
