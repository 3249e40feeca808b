import Foundation

extension ReadFeed {
    /// Rounds of chunk reads a nearby page may take before it is read exactly instead.
    static let nearbyRounds = 4

    /// A nearby page made in memory from the shared chunks of its cover's prefixes
    /// (`NearbyChunk`, kept by `FeedPageCache`), completed with the viewer's marks — or nil when
    /// it must be read exactly for the viewer (a block between the viewer and an author on the
    /// page, a cover near a pole, or a page that would take more than `nearbyRounds` rounds).
    ///
    /// Each prefix is a *lane*: the cards read so far of that prefix, newest first, and whether
    /// the prefix holds older ones. A candidate (a card of any lane within the radius, below the
    /// cursor) is certain to be where it is once every lane that may hold more is read down to it
    /// or further. So the page is the `limit + 1` newest candidates as soon as all of them are
    /// certain; until then the lanes read not far enough get their next chunk (keyed by where the
    /// lane ends, so other readers share it too), all in one read per round. One round is enough
    /// unless a prefix's newest cards lie outside the circle.
    ///
    /// The first page around a city reads nothing but the viewer's marks once its chunks are kept;
    /// a deeper page starts from the newest chunk of a prefix when that reaches below the cursor.
    /// A chunk that is not kept is read by one reader while the others wanting it wait for that
    /// read (`FeedPageCache.claim`): a chunk expiring under load is read once, not by everyone.
    /// A kept chunk in its last quarter of life is read again in the background by the first
    /// reader who finds it so (`refreshInBackground`), so a chunk in use rarely expires at all.
    func nearbyFromChunks(_ source: any ChunkSource, after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        let (location, radius) = (source.location, source.radius)
        let cache = self.environment.feedPages
        let cover = NearbyCover(around: location, radius: radius)
        guard NearbyChunk.indexedPrecisions.contains(cover.precision) else { return nil }
        let size = limit + 1
        let now = self.environment.now()

        // Below a cursor, the newest chunk of a prefix serves when it reaches the cursor.
        var heads: [NearbyChunk?] = cover.prefixes.map { _ in nil }
        if position != nil {
            let lookup = cache.chunks(cover.prefixes.map { NearbyChunk.Key(prefix: $0, after: nil, size: size) }, at: now)
            self.refreshInBackground(lookup.due, from: source, at: now)
            heads = lookup.chunks
        }
        var lanes = zip(cover.prefixes, heads).map { prefix, head in
            if let position, let head, head.isComplete || head.end.map({ !$0.precedes(position) }) == true {
                return Lane(
                    prefix: prefix, entries: head.entries.filter { position.precedes($0.position) }, end: head.end, complete: head.isComplete,
                    next: nil, readAt: head.readAt ?? now)
            }
            return Lane(
                prefix: prefix, entries: [], end: position, complete: false, next: NearbyChunk.Key(prefix: prefix, after: position, size: size),
                readAt: nil)
        }

        for round in 0..<Self.nearbyRounds {
            // A round after a wait (a read, another reader's read) looks at the clock again.
            let now = round == 0 ? now : self.environment.now()
            var missing: [Int] = []
            let wanted = lanes.indices.filter { lanes[$0].next != nil }
            let lookup = cache.chunks(wanted.map { lanes[$0].next! }, at: now)
            self.refreshInBackground(lookup.due, from: source, at: now)
            for (index, chunk) in zip(wanted, lookup.chunks) {
                if let chunk { lanes[index].extend(with: chunk, readAt: now) } else { missing.append(index) }
            }
            if !missing.isEmpty {
                let (mine, others) = cache.claim(missing.map { lanes[$0].next! })
                var read: [NearbyChunk.Key: NearbyChunk] = [:]
                if !mine.isEmpty {
                    let ticket = cache.ticket(at: now)
                    do {
                        let chunks = try await source.chunks(mine)
                        for (key, chunk) in zip(mine, chunks) {
                            // This page uses what it read; waiting readers get it only if kept.
                            let kept = cache.store(chunk, for: key, ticket: ticket)
                            cache.land(key, with: kept)
                            read[key] = kept ?? chunk
                        }
                    } catch {
                        for key in mine { cache.land(key, with: nil) }
                        throw error
                    }
                }
                for key in others {
                    // Another reader's read failed or was not kept: this page is read exactly.
                    guard let chunk = await cache.awaitChunk(key, at: now) else { return nil }
                    read[key] = chunk
                }
                // A chunk read here and not kept was read from this round's `now` on.
                for index in missing { lanes[index].extend(with: read[lanes[index].next!]!, readAt: now) }
            }

            // The newest `size` candidates: the lanes merged newest first (each is in order), so
            // only the cards the page reaches are measured, however many lanes a wide radius has.
            // Candidates are where they are in their lane: entries (a card each) are not copied.
            var candidates: [(lane: Int, index: Int, distance: Double)] = []
            var heads = Array(repeating: 0, count: lanes.count)
            while candidates.count < size {
                var newest = -1
                for index in lanes.indices where heads[index] < lanes[index].entries.count {
                    if newest < 0 || lanes[index].entries[heads[index]].position.precedes(lanes[newest].entries[heads[newest]].position) {
                        newest = index
                    }
                }
                guard newest >= 0 else { break }
                let centre = lanes[newest].entries[heads[newest]].centre
                let distance = NearbyCover.haversine(location.latitude, location.longitude, centre.latitude, centre.longitude)
                if distance <= radius.metres { candidates.append((newest, heads[newest], distance)) }
                heads[newest] += 1
            }
            // The last candidate the page needs; a lane that may hold more must be read down to it.
            let last = candidates.count >= size ? lanes[candidates[size - 1].lane].entries[candidates[size - 1].index].position : nil
            var certain = true
            for index in lanes.indices where !lanes[index].complete {
                guard let end = lanes[index].end else { continue }
                if let last, !end.precedes(last) { continue }
                certain = false
                lanes[index].next = NearbyChunk.Key(prefix: lanes[index].prefix, after: end, size: size)
            }
            guard certain else { continue }

            let shown = candidates.prefix(limit).map { lanes[$0.lane].entries[$0.index] }
            let distances = candidates.prefix(limit).map(\.distance)
            let next = candidates.count > limit ? shown.last?.position : nil
            let memos = shown.compactMap(\.memo)
            let shared = FeedPage(
                cards: zip(shown, distances).map { $0.card.measured($1) }, next: next, shared: memos.count == shown.count ? .cards(memos) : nil,
                readAt: lanes.compactMap(\.readAt).min())
            if shared.cards.isEmpty { return shared }
            let marks = try await self.marks(of: viewer, on: shared)
            return marks.blocked ? nil : shared.seen(by: viewer, marks: marks, at: self.environment.now())
        }
        return nil
    }

    /// Reads again, in a task of their own, the chunks `FeedPageCache.chunks(_:at:)` found due for
    /// a read ahead of their expiry and claimed for this reader; the page does not wait for it.
    ///
    /// A failed read is not an error of this page (it was made from the kept chunks, which serve
    /// until they expire): the claims are released, and the reader who then finds a chunk gone
    /// reads it in the foreground and meets the error, if there still is one.
    private func refreshInBackground(_ keys: [NearbyChunk.Key], from source: any ChunkSource, at now: Date) {
        guard !keys.isEmpty else { return }
        let cache = self.environment.feedPages
        let ticket = cache.ticket(at: now)
        Task {
            do {
                let chunks = try await source.chunks(keys)
                for (key, chunk) in zip(keys, chunks) {
                    cache.land(key, with: cache.store(chunk, for: key, ticket: ticket))
                }
            } catch {
                for key in keys { cache.land(key, with: nil) }
            }
        }
    }
}

/// One prefix of a nearby cover as `nearbyFromChunks` reads it.
private struct Lane {
    let prefix: String
    /// The prefix's cards read so far, newest first, below the cursor.
    var entries: [NearbyChunk.Entry]
    /// Where the reading ends: older cards of the prefix are not read yet (nil: nothing read).
    var end: FeedPosition?
    /// The prefix holds nothing older than `end`.
    var complete: Bool
    /// The chunk to read next, if any.
    var next: NearbyChunk.Key?
    /// When the read of its oldest chunk began (`FeedPage.readAt`); nil: nothing read.
    var readAt: Date?

    /// Appends `chunk`, whose read began at its `readAt` or, if it has none (read by this reader
    /// and not kept), at `fallback`.
    mutating func extend(with chunk: NearbyChunk, readAt fallback: Date) {
        // Most lanes take one chunk: share its storage rather than copy its entries.
        if self.entries.isEmpty { self.entries = chunk.entries } else { self.entries += chunk.entries }
        self.end = chunk.end ?? self.end
        self.complete = chunk.isComplete
        self.next = nil
        let readAt = chunk.readAt ?? fallback
        self.readAt = min(self.readAt ?? readAt, readAt)
    }
}
