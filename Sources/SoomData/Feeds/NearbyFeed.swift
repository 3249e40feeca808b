import Foundation
import PostgresNIO
import SoomDomain

/// The nearby feed: top-level cards whose cell centre is within the radius of a point, newest
/// first, each with its distance. Pages are made in memory from shared chunks of the cover's
/// prefixes (`ChunkSource`, `NearbyStatements.Chunks`), or read for the viewer
/// (`NearbyStatements.Page`, `PolarPage` near a pole).
struct NearbyFeed: ChunkSource {
    let database: Database
    let location: GeoLocation
    let radius: NearbyRadius

    func page(after position: FeedPosition?, limit: Int, viewer: UUID) async throws -> FeedPage? {
        let cover = NearbyCover(around: self.location, radius: self.radius)
        func read<Length: PrefixLength>(_: Length.Type) async throws -> FeedPage {
            let statement = NearbyStatements.Page<Length>(
                viewer: viewer, location: self.location, radius: self.radius, cover: cover, position: position, rows: limit + 1)
            return FeedPage(rows: try await self.database.rows(statement), limit: limit)
        }
        switch cover.precision {
        case 6...: return try await read(PrefixLength6.self)
        case 5: return try await read(PrefixLength5.self)
        case 4: return try await read(PrefixLength4.self)
        case 3: return try await read(PrefixLength3.self)
        default:
            let statement = NearbyStatements.PolarPage(
                viewer: viewer, location: self.location, radius: self.radius, position: position, rows: limit + 1)
            return FeedPage(rows: try await self.database.rows(statement), limit: limit)
        }
    }

    func chunks(_ keys: [NearbyChunk.Key]) async throws -> [NearbyChunk] {
        let rows: [NearbyStatements.ChunkRow] =
            switch keys.first?.prefix.count {
            case 3: try await self.database.rows(NearbyStatements.Chunks<PrefixLength3>(keys: keys))
            case 4: try await self.database.rows(NearbyStatements.Chunks<PrefixLength4>(keys: keys))
            case 5: try await self.database.rows(NearbyStatements.Chunks<PrefixLength5>(keys: keys))
            case 6: try await self.database.rows(NearbyStatements.Chunks<PrefixLength6>(keys: keys))
            // Chunks are read for indexed prefix lengths only (`NearbyChunk.indexedPrecisions`).
            default: []
            }
        var entries = Array(repeating: [NearbyChunk.Entry](), count: keys.count)
        for row in rows where entries.indices.contains(row.key) { entries[row.key].append(row.entry) }
        return zip(keys, entries).map { NearbyChunk(entries: $1, size: $0.size) }
    }
}

/// The nearby feed's statements, which read only what a page needs.
///
/// A card keeps only its cell (`GeoCell`: the centre, and the cell's key, a geohash of length 6).
/// Four partial B-tree indexes order located top-level cards by time within a geohash prefix of
/// length 3, 4, 5 and 6 (`cards_nearby_p3_idx` … `p6`), and carry what the filters need
/// (`INCLUDE`: centre, author, expiry, hidden), so they are read without the table.
/// `NearbyCover` names the prefixes of one length whose cells can hold a centre within the
/// radius; for each, the statement reads that prefix's index newest first, keeping centres truly
/// within the radius and cards the viewer may see, and stops after a page (a `LATERAL` subquery
/// with the page's `LIMIT`); the newest page of those candidates is the page. So a page reads at
/// most a page per cell, plus the rows of a cell outside the circle it passes on the way — never
/// every card near the point, and never more as the table grows elsewhere.
///
/// The prefixes are one array parameter: one statement text per prefix length, planned once per
/// connection. (A branch per prefix with unused ones bound to NULL would be planned at every
/// execution: pruning the NULL branches makes each custom plan look cheaper than the generic one.)
/// A cover coarser than length 3 (a circle around a pole) reads `PolarPage`.
enum NearbyStatements {
    /// The indexed prefix lengths.
    static let indexedLengths = 3...6

    /// The parameters: the viewer, the query point's latitude and longitude, the radius in metres,
    /// the prefixes, the page's rows (its limit + 1), the cursor's time (µs) and id
    /// (`FeedPosition.top` on a first page) — `Page`'s bindings.
    static func text(length: Int) -> String {
        var parameters = Parameters()
        let viewer = "\(parameters.next())::uuid"
        let (latitude, longitude, radius, prefixes, rows) = (
            parameters.next(), parameters.next(), parameters.next(), parameters.next(), parameters.next()
        )
        let keyset =
            "AND (c.created_at, c.id) < (timestamptz 'epoch' + \(parameters.next())::int8 * interval '1 microsecond', \(parameters.next())::uuid)"
        let prefix = length == 6 ? "c.geo_cell" : "left(c.geo_cell, \(length))"
        // Blocks are read once for the page (`h`: the accounts the viewer blocked or was blocked
        // by) rather than probed for every candidate as `CardRow.visible` does: a page weighs up
        // to a page of candidates per cell, and the per-row probe was a third of its cost.
        // The distance is computed for the page's cards only; candidates are kept by it.
        return """
            SELECT \(CardRow.select(viewer: viewer, distance: Self.distance(latitude: latitude, longitude: longitude, of: "u")))
            FROM (
                SELECT n.* FROM
                    (SELECT ARRAY(SELECT blocked_id FROM blocks WHERE blocker_id = \(viewer)
                                  UNION ALL SELECT blocker_id FROM blocks WHERE blocked_id = \(viewer)) AS ids) h,
                    unnest(\(prefixes)::text[]) AS p (prefix)
                CROSS JOIN LATERAL (
                    SELECT c.id, c.created_at, c.geo_latitude, c.geo_longitude FROM cards c
                    WHERE \(prefix) = p.prefix AND c.parent_id IS NULL AND c.geo_cell IS NOT NULL \(keyset)
                      AND \(Self.distance(latitude: latitude, longitude: longitude, of: "c")) <= \(radius)::float8
                      AND \(CardRow.live) AND c.author_id <> ALL (h.ids)
                    ORDER BY c.created_at DESC, c.id DESC LIMIT \(rows)::int8) n
                ORDER BY n.created_at DESC, n.id DESC LIMIT \(rows)::int8) u
            JOIN cards c ON c.id = u.id \(CardRow.joins(viewer: viewer))
            ORDER BY u.created_at DESC, u.id DESC
            """
    }

    /// Great-circle distance in metres (haversine on the mean Earth radius) from the point to the
    /// card's cell centre.
    static func distance(latitude: String, longitude: String, of card: String) -> String {
        """
        (2 * \(GeoCell.earthRadius) * asin(least(1, sqrt(
            power(sin(radians(\(card).geo_latitude - \(latitude)::float8) / 2), 2)
            + cos(radians(\(latitude)::float8)) * cos(radians(\(card).geo_latitude))
              * power(sin(radians(\(card).geo_longitude - \(longitude)::float8) / 2), 2)))))
        """
    }

    /// Every statement text, made once (the statements' names and texts are asked for on every execution).
    static let texts: [Int: String] = Dictionary(uniqueKeysWithValues: Self.indexedLengths.map { ($0, Self.text(length: $0)) })

    /// A page over prefixes of length `Length.value`.
    struct Page<Length: PrefixLength>: CardRowStatement {
        static var sql: String { NearbyStatements.texts[Length.value]! }

        let viewer: UUID
        let location: GeoLocation
        let radius: NearbyRadius
        let cover: NearbyCover
        let position: FeedPosition?
        let rows: Int

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 8)
            bindings.append(self.viewer)
            bindings.append(self.location.latitude)
            bindings.append(self.location.longitude)
            bindings.append(self.radius.metres)
            bindings.append(self.cover.prefixes)
            bindings.append(self.rows)
            let position = self.position ?? .top
            bindings.append(position.createdAtMicros)
            bindings.append(position.id)
            return bindings
        }
    }

    /// A chunk's entry, and which of the keys (its ordinal, from 0) it belongs to.
    typealias ChunkRow = (key: Int, entry: NearbyChunk.Entry)

    /// The shared chunks (`NearbyChunk`) of prefixes of length `Length.value`, one read for many:
    /// The parameters: the prefixes, the time (µs) and id each starts below, their sizes, the
    /// viewer no one is. Each prefix is read through its index newest first, index-only, up
    /// to its size; then only those cards are read in full. Rows come in the keys' order.
    struct Chunks<Length: PrefixLength>: NamedStatement {
        typealias Row = ChunkRow
        static var sql: String { NearbyStatements.chunkTexts[Length.value]! }

        let keys: [NearbyChunk.Key]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 4)
            let positions = self.keys.map { $0.after ?? .top }
            bindings.append(self.keys.map(\.prefix))
            bindings.append(positions.map(\.createdAtMicros))
            bindings.append(positions.map(\.id))
            bindings.append(self.keys.map(\.size))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            // After `CardRow.select`'s columns: the key's ordinal and the cell's centre.
            var cells = RowCells(row)
            let (card, micros) = try CardRow.decode(&cells)
            let ordinal = try cells.next(Int64.self)
            let centre = try GeoLocation(latitude: try cells.next(Double.self), longitude: try cells.next(Double.self))
            return (Int(ordinal) - 1, NearbyChunk.Entry(card: card, micros: micros, centre: centre))
        }
    }

    static func chunkText(length: Int) -> String {
        var parameters = Parameters()
        let (prefixes, micros, ids, sizes) = (parameters.next(), parameters.next(), parameters.next(), parameters.next())
        let prefix = length == 6 ? "c.geo_cell" : "left(c.geo_cell, \(length))"
        return """
            SELECT \(CardRow.sharedSelect()), k.ord, c.geo_latitude, c.geo_longitude
            FROM unnest(\(prefixes)::text[], \(micros)::int8[], \(ids)::uuid[], \(sizes)::int8[]) WITH ORDINALITY AS k (prefix, micros, id, size, ord)
            CROSS JOIN LATERAL (
                SELECT c.id, c.created_at FROM cards c
                WHERE \(prefix) = k.prefix AND c.parent_id IS NULL AND c.geo_cell IS NOT NULL
                  AND (c.created_at, c.id) < (timestamptz 'epoch' + k.micros * interval '1 microsecond', k.id)
                  AND \(CardRow.live)
                ORDER BY c.created_at DESC, c.id DESC LIMIT k.size) n
            JOIN cards c ON c.id = n.id \(CardRow.sharedJoins)
            ORDER BY k.ord, n.created_at DESC, n.id DESC
            """
    }

    static let chunkTexts: [Int: String] = Dictionary(uniqueKeysWithValues: Self.indexedLengths.map { ($0, Self.chunkText(length: $0)) })

    /// Near a pole, where even cells of length 3 are too many: located top-level cards newest
    /// first, filtered by distance. Few cards are ever posted there; a page may read more rows.
    /// The parameters: the viewer, the point's latitude and longitude, the radius, then the cursor
    /// and the page's rows (`PageStatement`).
    struct PolarPage: PageStatement, CardRowStatement {
        static let sql: String = {
            var parameters = Parameters()
            let (viewer, latitude, longitude, radius) = (parameters.next(), parameters.next(), parameters.next(), parameters.next())
            let distance = NearbyStatements.distance(latitude: latitude, longitude: longitude, of: "c")
            return KeysetPageSQL.text(
                columns: CardRow.select(viewer: viewer, distance: distance), from: "FROM cards c \(CardRow.joins(viewer: viewer))",
                scope: "c.parent_id IS NULL AND c.geo_cell IS NOT NULL AND \(CardRow.visible(to: viewer)) AND \(distance) <= \(radius)::float8",
                keys: ("c.created_at", "c.id"), parameters: &parameters)
        }()

        let viewer: UUID
        let location: GeoLocation
        let radius: NearbyRadius
        let position: FeedPosition?
        let rows: Int

        func bindSubject(to bindings: inout PostgresBindings) {
            bindings.append(self.viewer)
            bindings.append(self.location.latitude)
            bindings.append(self.location.longitude)
            bindings.append(self.radius.metres)
        }
    }
}

/// A geohash prefix length that has an index, as a type: one prepared statement per length.
protocol PrefixLength: Sendable { static var value: Int { get } }
enum PrefixLength3: PrefixLength { static var value: Int { 3 } }
enum PrefixLength4: PrefixLength { static var value: Int { 4 } }
enum PrefixLength5: PrefixLength { static var value: Int { 5 } }
enum PrefixLength6: PrefixLength { static var value: Int { 6 } }
