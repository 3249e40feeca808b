import Foundation
import PostgresNIO
import SoomDomain

/// The nearby feed: "cards whose cell centre is within r of a point, newest first", with keyset
/// paging, as prepared statements that read only what a page needs.
///
/// A card keeps only its cell (`GeoCell`: the centre, and the cell's key, a geohash of length 6).
/// Four partial B-tree indexes order located top-level cards by time within a geohash prefix of
/// length 3, 4, 5 and 6 (`cards_nearby_p3_idx` … `p6`). `NearbyCover` names the prefixes of one
/// length whose cells may hold a centre within the radius (at most `slots`); the statement reads
/// each prefix's index newest first — one branch per slot of a `UNION ALL`, each keeping the
/// centres truly within the radius and the cards the viewer may see, merged by time (Merge
/// Append) — and stops after the page. So a page reads about a page of rows plus those of its prefixes'
/// cells that lie outside the circle, never every card near the point, and never more as the
/// table grows elsewhere.
///
/// Unused slots are bound to NULL, which matches nothing and costs no index descent: one
/// statement text per prefix length and cursor kind, parsed and planned once per connection.
/// A cover coarser than length 3 (a circle around a pole) reads `PolarScan`.
enum NearbyStatements {
    /// Prefixes one statement can read: `NearbyCover`'s bound.
    static let slots = 40
    /// The indexed prefix lengths.
    static let indexedLengths = 3...6

    /// `$1` viewer, `$2`/`$3` the query point's latitude/longitude, `$4` the radius in metres,
    /// `$5…$44` the prefixes; after a cursor `$45`/`$46` its time (µs) and id; last, the limit.
    static func text(length: Int, after: Bool) -> String {
        let distance = Self.distance(latitude: "$2", longitude: "$3", of: "c")
        let keyset = after ? "AND (c.created_at, c.id) < (timestamptz 'epoch' + $45::int8 * interval '1 microsecond', $46::uuid)" : ""
        let prefix = length == 6 ? "c.geo_cell" : "left(c.geo_cell, \(length))"
        // Each branch is a whole page on its own (ordered, filtered, limited): PostgreSQL then
        // reads each by its index in order and merges them. Without the per-branch LIMIT, its
        // generic plan for this statement read every card of every prefix, sorted them, and took
        // 0.8 s at 1M cards (bitmap scans and a sort: it expected few rows per prefix).
        let branches = (0..<Self.slots).map { slot in
            """
            (SELECT c.id, c.created_at, \(distance) AS distance FROM cards c
             WHERE \(prefix) = $\(5 + slot)::text AND c.parent_id IS NULL AND c.geo_cell IS NOT NULL \(keyset)
               AND \(distance) <= $4::float8 AND \(CardRow.visible(to: "$1::uuid"))
             ORDER BY c.created_at DESC, c.id DESC LIMIT \(CardStatements.maximumPageRows))
            """
        }
        let limit = after ? "$47" : "$45"
        return """
            SELECT * FROM (
                SELECT \(CardRow.select(viewer: "$1::uuid", distance: "u.distance"))
                FROM (\(branches.joined(separator: "\nUNION ALL\n"))) u
                JOIN cards c ON c.id = u.id \(CardRow.joins(viewer: "$1::uuid"))
                ORDER BY u.created_at DESC, u.id DESC LIMIT \(CardStatements.maximumPageRows)
            ) page LIMIT \(limit)
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

    /// Every statement text, made once: `text` builds tens of kilobytes.
    static let texts: [Int: (first: String, after: String)] = Dictionary(
        uniqueKeysWithValues: Self.indexedLengths.map { ($0, (Self.text(length: $0, after: false), Self.text(length: $0, after: true))) })

    /// The bindings every nearby statement starts with.
    static func bindings(viewer: UUID, cover: NearbyCover, location: GeoLocation, radius: NearbyRadius) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: Self.slots + 7)
        bindings.append(viewer)
        bindings.append(location.latitude)
        bindings.append(location.longitude)
        bindings.append(radius.metres)
        for slot in 0..<Self.slots {
            bindings.append(slot < cover.prefixes.count ? cover.prefixes[slot] : String?.none)
        }
        return bindings
    }

    /// The first page over prefixes of length `Length.value`.
    struct First<Length: PrefixLength>: CardRowStatement {
        static var sql: String { NearbyStatements.texts[Length.value]!.first }

        let viewer: UUID
        let location: GeoLocation
        let radius: NearbyRadius
        let cover: NearbyCover
        let limit: Int

        func makeBindings() throws -> PostgresBindings {
            var bindings = NearbyStatements.bindings(viewer: self.viewer, cover: self.cover, location: self.location, radius: self.radius)
            bindings.append(self.limit)
            return bindings
        }
    }

    /// A later page, after a keyset position.
    struct After<Length: PrefixLength>: CardRowStatement {
        static var sql: String { NearbyStatements.texts[Length.value]!.after }

        let viewer: UUID
        let location: GeoLocation
        let radius: NearbyRadius
        let cover: NearbyCover
        let position: FeedPosition
        let limit: Int

        func makeBindings() throws -> PostgresBindings {
            var bindings = NearbyStatements.bindings(viewer: self.viewer, cover: self.cover, location: self.location, radius: self.radius)
            bindings.append(self.position.createdAtMicros)
            bindings.append(self.position.id)
            bindings.append(self.limit)
            return bindings
        }
    }

    /// Near a pole, where even cells of length 3 are too many: located top-level cards newest
    /// first, filtered by distance. Few cards are ever posted there; a page may read more rows.
    static func polarScan(viewer: UUID, location: GeoLocation, radius: NearbyRadius, after position: FeedPosition?, limit: Int) -> PostgresQuery {
        var builder = SQLBuilder()
        let viewerParameter = builder.bind(viewer)
        let distance = Self.distance(latitude: builder.bind(location.latitude), longitude: builder.bind(location.longitude), of: "c")
        var conditions = ["c.parent_id IS NULL", "c.geo_cell IS NOT NULL", CardRow.visible(to: viewerParameter), "\(distance) <= \(builder.bind(radius.metres))"]
        if let position { conditions.append(CardRow.after(position, &builder)) }
        builder.append(
            """
            SELECT \(CardRow.select(viewer: viewerParameter, distance: distance)) FROM cards c \(CardRow.joins(viewer: viewerParameter))
            WHERE \(conditions.joined(separator: " AND ")) ORDER BY c.created_at DESC, c.id DESC LIMIT \(builder.bind(limit))
            """)
        return builder.query
    }
}

/// A geohash prefix length that has an index, as a type: one prepared statement per length.
protocol PrefixLength: Sendable { static var value: Int { get } }
enum PrefixLength3: PrefixLength { static var value: Int { 3 } }
enum PrefixLength4: PrefixLength { static var value: Int { 4 } }
enum PrefixLength5: PrefixLength { static var value: Int { 5 } }
enum PrefixLength6: PrefixLength { static var value: Int { 6 } }
