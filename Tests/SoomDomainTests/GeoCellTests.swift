import Foundation
import SoomDomain
import Testing

@Suite("Locations: geohash, cells no finer than 500 m, distance bands, nearby covers")
struct GeoCellTests {
    static let radius = 6_371_008.8

    @Test("geohash: known vectors, edges to the upper half, 90 and 180 in the last cell, invalid hashes")
    func geohashVectors() throws {
        #expect(Geohash.encode(latitude: 57.64911, longitude: 10.40744, precision: 11) == "u4pruydqqvj")
        #expect(Geohash.encode(latitude: 37.5665, longitude: 126.9780, precision: 6) == "wydm9q")
        #expect(Geohash.encode(latitude: 42.605, longitude: -5.603, precision: 5) == "ezs42")
        #expect(Geohash.encode(latitude: 0, longitude: 0, precision: 1) == "s")
        #expect(Geohash.encode(latitude: -0.0, longitude: -0.0, precision: 2) == "s0")
        #expect(Geohash.encode(latitude: 90, longitude: 180, precision: 12) == "zzzzzzzzzzzz")
        #expect(Geohash.encode(latitude: -90, longitude: -180, precision: 12) == "000000000000")
        let ezs42 = try #require(Geohash.decode("ezs42"))
        #expect([ezs42.south, ezs42.north, ezs42.west, ezs42.east] == [42.5830078125, 42.626953125, -5.625, -5.5810546875])
        #expect(ezs42.centreLatitude == 42.60498046875 && ezs42.centreLongitude == -5.60302734375)
        for invalid in ["", "a", "U4", "u4pruydqqvjx0", "ezs4 ", "ß"] {
            #expect(Geohash.decode(invalid) == nil, "\(invalid.debugDescription)")
        }
    }

    @Test("geohash: the cell contains the point, its centre encodes to it, prefixes are the coarser cells, edges go up")
    func geohashRoundTrips() throws {
        var generator = SplitMix64(seed: 1)
        for _ in 0..<500 {
            let latitude = Double.random(in: -90...90, using: &generator)
            let longitude = Double.random(in: -180...180, using: &generator)
            let full = Geohash.encode(latitude: latitude, longitude: longitude, precision: 12)
            for precision in 1...12 {
                let hash = Geohash.encode(latitude: latitude, longitude: longitude, precision: precision)
                #expect(hash == String(full.prefix(precision)))
                let cell = try #require(Geohash.decode(hash))
                #expect(cell.south <= latitude && latitude < cell.north && cell.west <= longitude && longitude < cell.east)
                #expect(Geohash.encode(latitude: cell.centreLatitude, longitude: cell.centreLongitude, precision: precision) == hash)
                // Lower edges belong to the cell; the upper ones to the next, except at 90 and 180.
                #expect(Geohash.encode(latitude: cell.south, longitude: cell.west, precision: precision) == hash)
                let above = Geohash.encode(latitude: cell.north, longitude: cell.centreLongitude, precision: precision)
                #expect((above == hash) == (cell.north == 90))
                let east = Geohash.encode(latitude: cell.centreLatitude, longitude: cell.east, precision: precision)
                #expect((east == hash) == (cell.east == 180))
                #expect(Geohash.encode(latitude: cell.north.nextDown, longitude: cell.east.nextDown, precision: precision) == hash)
            }
        }
    }

    /// The precision depends on the latitude alone, through the rows of cells the latitude is in,
    /// so checking every precision-6 row checks every point.
    @Test("cells: one precision per row, the coarser ones whole, at least 500 m wide and tall, decisions far from 500 m")
    func everyRow() {
        let rows = 1 << 15
        let height = 180.0 / Double(rows)
        var precisions: [Int] = []
        for row in 0..<rows {
            let south = -90 + Double(row) * height
            let precision = GeoCell.precision(atLatitude: south + height / 2)
            #expect(GeoCell.precision(atLatitude: south) == precision && GeoCell.precision(atLatitude: (south + height).nextDown) == precision)
            precisions.append(precision)
        }
        #expect(Set(precisions) == [3, 4, 5, 6])
        #expect(precisions == precisions.reversed(), "the rule is symmetric about the equator")
        for (row, precision) in precisions.enumerated() {
            // The row of the point's cell, in rows of that precision; all of it has that precision.
            let shift = 15 - 5 * precision / 2
            let first = (row >> shift) << shift
            let cellRows = first..<(first + 1 << shift)
            #expect(cellRows.allSatisfy { precisions[$0] == precision }, "row \(row)")
            let south = -90 + Double(cellRows.lowerBound) * height
            let north = -90 + Double(cellRows.upperBound) * height
            let degrees = 360 / Double(1 << ((5 * precision + 1) / 2))
            // Measured where the cell is narrowest: its poleward edge, or the other one when it touches a pole.
            let narrowest = abs(south) == 90 || abs(north) == 90 ? min(abs(south), abs(north)) : max(abs(south), abs(north))
            #expect(Self.metres(degrees: degrees, at: narrowest) >= 500, "row \(row)")
            #expect((north - south) * .pi / 180 * Self.radius >= 500)
        }
        // Every decision (a finer precision in a parent cell) is more than 10 cm from the limit
        // (a relative 2e-4), so SQL and Swift, whose cosines may differ in the last bit, decide alike.
        for precision in 2...6 {
            let parentRows = 1 << (5 * (precision - 1) / 2)
            let parentHeight = 180 / Double(parentRows)
            for row in 0..<parentRows {
                let south = -90 + Double(row) * parentHeight
                let narrowest = min(max(abs(south), abs(south + parentHeight)), 90 - 180 / Double(1 << (5 * precision / 2)))
                let width = Self.metres(degrees: 360 / Double(1 << ((5 * precision + 1) / 2)), at: narrowest)
                #expect(abs(width - 500) > 0.1, "precision \(precision), parent row \(row): \(width) m")
            }
        }
    }

    @Test("cells: thresholds at 65.83°, 84.02° and 88.59°")
    func thresholds() throws {
        let expected: [(Double, Int)] = [
            (0, 6), (65.830078125.nextDown, 6), (65.830078125, 5), (84.0234375.nextDown, 5), (84.0234375, 4),
            (88.59375.nextDown, 4), (88.59375, 3), (90, 3), (-65.830078125, 6), ((-65.830078125).nextDown, 5), (-90, 3),
        ]
        for (latitude, precision) in expected {
            #expect(GeoCell(containing: try GeoLocation(latitude: latitude, longitude: 12.3)).precision == precision, "\(latitude)")
        }
    }

    @Test("cells: contain their points, are chosen for their centres, ignore a few metres, key prefixes the hash")
    func partition() throws {
        var generator = SplitMix64(seed: 2)
        var points: [(Double, Double)] = [(90, 180), (-90, -180), (90, -180), (-90, 180), (0, 0), (-0.0, 180), (65.830078125, 0), (88.59375, -180)]
        for _ in 0..<5000 {
            let high = generator.next() % 3 == 0
            let sign: Double = generator.next() % 2 == 0 ? 1 : -1
            let latitude = high ? sign * Double.random(in: 60...90, using: &generator) : Double.random(in: -90...90, using: &generator)
            points.append((latitude, Double.random(in: -180...180, using: &generator)))
        }
        for (latitude, longitude) in points {
            let cell = GeoCell(containing: try GeoLocation(latitude: latitude, longitude: longitude))
            let bounds = try #require(Geohash.decode(cell.hash))
            #expect(cell.hash.count == cell.precision && cell.key.count == 6 && cell.key.hasPrefix(cell.hash))
            #expect(bounds.south <= latitude && latitude <= bounds.north && bounds.west <= longitude && longitude <= bounds.east)
            #expect(Geohash.encode(latitude: latitude, longitude: longitude, precision: cell.precision) == cell.hash)
            #expect(cell.latitude == bounds.centreLatitude && cell.longitude == bounds.centreLongitude)
            #expect(Geohash.encode(latitude: cell.latitude, longitude: cell.longitude, precision: 6) == cell.key)
            #expect(GeoCell(containing: try GeoLocation(latitude: cell.latitude, longitude: cell.longitude)) == cell)
            // A few metres from the centre (cells are at least 500 m each way) is the same cell.
            let nearby = Self.destination(from: (cell.latitude, cell.longitude), metres: 5, bearing: Double.random(in: 0..<360, using: &generator))
            #expect(GeoCell(containing: try GeoLocation(latitude: nearby.0, longitude: nearby.1)) == cell)
        }
    }

    @Test("distance bands round up to 100 m below 1 km and to 1 km from there")
    func distanceBands() {
        let expected: [(Double, Int)] = [
            (0, 100), (1, 100), (100, 100), (100.01, 200), (950, 1000), (999.9, 1000), (1000, 1000), (1000.01, 2000), (12_345, 13_000),
            (-5, 100), (.nan, 100), (.infinity, 20_016_000),
        ]
        for (exact, metres) in expected {
            #expect(DistanceBand.metres(exact) == metres, "\(exact)")
        }
    }

    /// Seoul (37.5665, 126.9780) needs 5 cells of precision 6 for 1 km (the cells whose centre is
    /// within 1 km), 8, 24 and 80 of precision 5 for 5, 10 and 20 km, 21 of precision 4 for 50 km
    /// (the cells whose inner rectangle of centres the circle reaches).
    @Test("nearby covers: Seoul, and a pole")
    func seoulAndPole() throws {
        let seoul = try GeoLocation(latitude: 37.5665, longitude: 126.9780)
        let covers = NearbyRadius.allCases.map { NearbyCover(around: seoul, radius: $0) }
        #expect(covers.map(\.precision) == [6, 5, 5, 5, 4])
        #expect(covers.map(\.prefixes.count) == [5, 8, 24, 80, 21])
        #expect(covers[0].prefixes.contains("wydm9q"))
        // Around the pole every longitude is within 1 km: all 32 cells of precision 2 in the top row.
        let pole = NearbyCover(around: try GeoLocation(latitude: 90, longitude: 0), radius: .one)
        #expect(pole.precision == 2 && pole.prefixes.count == 32)
        let antimeridian = NearbyCover(around: try GeoLocation(latitude: 0, longitude: 180), radius: .one)
        #expect(antimeridian.prefixes.contains { $0.hasPrefix("8") } && antimeridian.prefixes.contains { $0.hasPrefix("x") })
    }

    /// At high latitudes covers reach the limit, 100 prefixes. Failures are collected by hand, not
    /// with `#expect`, whose bookkeeping would dominate these loops.
    @Test("nearby covers hold every stored cell within the radius, in at most 100 cells")
    func covers() throws {
        var generator = SplitMix64(seed: 3)
        var worst = 0
        var misses: [String] = []
        for index in 0..<2000 {
            let query = Self.query(index, &generator)
            let location = try GeoLocation(latitude: query.0, longitude: query.1)
            for radius in NearbyRadius.allCases {
                let cover = NearbyCover(around: location, radius: radius)
                let prefixes = Set(cover.prefixes)
                let wellFormed = cover.prefixes == prefixes.sorted() && prefixes.allSatisfy { $0.count == cover.precision }
                if !wellFormed || (cover.prefixes.count > 100 && cover.precision > 1) {
                    misses.append("\(query) \(radius): \(cover)")
                }
                worst = max(worst, cover.prefixes.count)
                for sample in 0..<12 {
                    // Half anywhere in the disc, half near its edge.
                    let fraction = Double.random(in: sample < 6 ? 0...1 : 0.94...1, using: &generator).squareRoot()
                    let bearing = Double.random(in: 0..<360, using: &generator)
                    let point = Self.destination(from: query, metres: radius.metres * fraction, bearing: bearing)
                    let cell = GeoCell(containing: try GeoLocation(latitude: point.0, longitude: point.1))
                    let found = prefixes.contains(String(cell.key.prefix(cover.precision)))
                    if !found, Self.haversine(query, (cell.latitude, cell.longitude)) <= radius.metres {
                        misses.append("\(query) \(radius): \(cell.key) not in \(cover.prefixes)")
                    }
                }
            }
        }
        #expect(misses.isEmpty, "\(misses.count): \(misses.prefix(5))")
        #expect(worst <= 100)
    }

    /// Stored locations are cell centres only, so listing every cell near a query checks its
    /// cover completely; and no cell of a cover lies far outside the circle.
    @Test("nearby covers: every cell centre within the radius, exhaustively, and nothing far")
    func coversExhaustively() throws {
        var generator = SplitMix64(seed: 4)
        var misses: [String] = []
        for index in 0..<100 {
            let query = Self.query(index, &generator)
            let location = try GeoLocation(latitude: query.0, longitude: query.1)
            for radius in [NearbyRadius.one, .five, .ten] {
                let cover = NearbyCover(around: location, radius: radius)
                let prefixes = Set(cover.prefixes)
                let angle = radius.metres / Self.radius
                let degrees = angle * 180 / .pi * 1.1
                // The circle's reach in longitude: all of it around a pole, else asin(sin r / cos φ).
                let polar = abs(query.0) + degrees >= 90
                let spread = polar ? 180 : asin(sin(angle) / cos(query.0 * .pi / 180)) * 180 / .pi * 1.1
                // Points 0.9 cells apart, over the circle's box, find every cell in it.
                var cells = Set<GeoCell>()
                for latitude in stride(from: max(-90, query.0 - degrees), through: min(90, query.0 + degrees), by: 0.9 * 180 / 32768) {
                    let precision = GeoCell.precision(atLatitude: latitude)
                    let step = 0.9 * 360 / Double(1 << ((5 * precision + 1) / 2))
                    for longitude in stride(from: query.1 - spread, through: query.1 + spread, by: step) {
                        cells.insert(GeoCell(containing: try GeoLocation(latitude: latitude, longitude: remainder(longitude, 360))))
                    }
                }
                for cell in cells where Self.haversine(query, (cell.latitude, cell.longitude)) <= radius.metres {
                    if !prefixes.contains(String(cell.key.prefix(cover.precision))) {
                        misses.append("\(query) \(radius): \(cell.key) not in \(cover.prefixes)")
                    }
                }
                for prefix in cover.prefixes {
                    let bounds = try #require(Geohash.decode(prefix))
                    let boundary = (0...20).flatMap { step in
                        let t = Double(step) / 20
                        let latitude = bounds.south + (bounds.north - bounds.south) * t
                        let longitude = bounds.west + (bounds.east - bounds.west) * t
                        return [(latitude, bounds.west), (latitude, bounds.east), (bounds.south, longitude), (bounds.north, longitude)]
                    }
                    let inside = bounds.south <= query.0 && query.0 <= bounds.north && bounds.west <= query.1 && query.1 <= bounds.east
                    let nearest = inside ? 0 : boundary.map { Self.haversine(query, $0) }.min()!
                    // Sampled every twentieth of an edge: up to half a sample spacing too far.
                    let tall = (bounds.north - bounds.south) * .pi / 180 * Self.radius
                    let wide = Self.metres(degrees: bounds.east - bounds.west, at: min(abs(bounds.south), abs(bounds.north)))
                    if nearest > radius.metres + max(tall, wide) / 40 + 2 {
                        misses.append("\(query) \(radius): \(prefix) is \(nearest) m away")
                    }
                }
            }
        }
        #expect(misses.isEmpty, "\(misses.count): \(misses.prefix(5))")
    }

    // MARK: Helpers, independent of the code under test.

    /// Query points: anywhere, high latitudes, near the poles, near the antimeridian.
    static func query(_ index: Int, _ generator: inout SplitMix64) -> (Double, Double) {
        let sign: Double = generator.next() % 2 == 0 ? 1 : -1
        let longitude = Double.random(in: -180...180, using: &generator)
        return switch index % 5 {
        case 0: (Double.random(in: -90...90, using: &generator), longitude)
        case 1: (sign * Double.random(in: 55...85, using: &generator), longitude)
        case 2: (sign * Double.random(in: 85...90, using: &generator), longitude)
        case 3: (sign * Double.random(in: 89.9...90, using: &generator), longitude)
        default: (Double.random(in: -80...80, using: &generator), sign * Double.random(in: 179.5...180, using: &generator))
        }
    }

    static func metres(degrees: Double, at latitude: Double) -> Double {
        Self.radius * cos(latitude * .pi / 180) * degrees * .pi / 180
    }

    static func haversine(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let (phi1, phi2) = (a.0 * .pi / 180, b.0 * .pi / 180)
        let h = pow(sin((phi2 - phi1) / 2), 2) + cos(phi1) * cos(phi2) * pow(sin((b.1 - a.1) * .pi / 360), 2)
        return 2 * Self.radius * asin(min(1, h.squareRoot()))
    }

    /// The point `metres` away along the great circle leaving at `bearing` degrees.
    static func destination(from start: (Double, Double), metres: Double, bearing: Double) -> (Double, Double) {
        let delta = metres / Self.radius
        let theta = bearing * .pi / 180
        let phi1 = start.0 * .pi / 180
        let phi2 = asin(min(1, max(-1, sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta))))
        let lambda = start.1 * .pi / 180 + atan2(sin(theta) * sin(delta) * cos(phi1), cos(delta) - sin(phi1) * sin(phi2))
        return (min(90, max(-90, phi2 * 180 / .pi)), remainder(lambda * 180 / .pi, 360))
    }
}
