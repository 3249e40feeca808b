import Foundation

/// The index cells a nearby query reads: every geohash cell of `precision` that may hold the
/// centre of a card's `GeoCell` within the radius, as prefixes of `GeoCell.key`.
///
/// A cell is included iff the nearest place in it where a stored centre can lie is within the
/// radius plus `margin`, so no card within the radius is missed (the feed then measures each
/// card's exact distance), and a cell clearly farther is left out. Where cards keep geohash-6
/// cells (below 65.83° of latitude), stored centres are the centres of geohash-6 cells, which lie
/// half such a cell inside any coarser cell's edges: a cell is measured by that inner rectangle,
/// and a geohash-6 cell by its centre alone. So a cell is read only if it can hold a card within
/// the radius: one that merely grazes the circle would make the feed read all its cards for none. Cells on both sides of the
/// antimeridian are found, and a circle around a pole covers every longitude there.
///
/// The precision is 6 for 1 km, 5 for 5, 10 and 20 km, 4 for 50 km, one coarser while more than
/// `maximumCells` cells are needed (cells narrow towards the poles), down to 1, which is used
/// however many cells it needs. Finer cells mean more index descents but fewer cards read that lie
/// outside the circle: a cell the circle only grazes is read through to its end when none of its
/// cards is near enough.
public struct NearbyCover: Sendable, Equatable {
    public let precision: Int
    /// Geohashes of length `precision`, sorted, without duplicates.
    public let prefixes: [String]

    /// Metres added to the radius: covers the rounding of this distance and of the feed's own
    /// haversine (both within millimetres at 50 km).
    static let margin = 1.0

    public init(around location: GeoLocation, radius: NearbyRadius, maximumCells: Int = 100) {
        var precision =
            switch radius {
            case .one: 6
            case .five, .ten, .twenty: 5
            case .fifty: 4
            }
        let reach = radius.metres + Self.margin
        while true {
            if let cells = Self.cells(around: location, within: reach, precision: precision, limit: precision > 1 ? maximumCells : nil) {
                self.precision = precision
                self.prefixes = cells.sorted()
                return
            }
            precision -= 1
        }
    }

    /// The hashes of the cells of `precision` within `reach` metres of the point; `nil` as soon as
    /// there are more than `limit`.
    ///
    /// Only the rows a circle of that radius reaches can qualify (no point is nearer than its
    /// difference in latitude). Within a row, a cell's distance grows with its difference in
    /// longitude from the point, so the cells within reach are a run of columns around the
    /// point's own, wrapping around the antimeridian: each row is walked east and west from that
    /// column until a cell is out of reach or the row is done.
    static func cells(around location: GeoLocation, within reach: Double, precision: Int, limit: Int?) -> [String]? {
        let degrees = reach / GeoCell.earthRadius * 180 / .pi
        let southRow = Geohash.row(of: max(location.latitude - degrees, -90), precision: precision)
        let northRow = Geohash.row(of: min(location.latitude + degrees, 90), precision: precision)
        let columns = Geohash.columns(precision)
        let home = Geohash.column(of: location.longitude, precision: precision)
        let most = limit ?? .max
        var cells: [(row: Int, column: Int)] = []
        for row in southRow...northRow {
            func within(_ column: Int) -> Bool {
                Self.minimumDistance(from: location, to: Self.centres(in: Geohash.bounds(row: row, column: column, precision: precision))) <= reach
            }
            guard within(home) else { continue }
            cells.append((row, home))
            var walked = 1
            var east = (home + 1) % columns
            while walked < columns, cells.count <= most, within(east) {
                cells.append((row, east))
                walked += 1
                east = (east + 1) % columns
            }
            var west = (home - 1 + columns) % columns
            while walked < columns, cells.count <= most, within(west) {
                cells.append((row, west))
                walked += 1
                west = (west - 1 + columns) % columns
            }
            if cells.count > most { return nil }
        }
        return cells.map { Geohash.hash(row: $0.row, column: $0.column, precision: precision) }
    }

    /// Half a geohash-6 cell, in degrees of latitude and of longitude.
    static let halfKeyCell = (latitude: 180.0 / 65536, longitude: 360.0 / 65536)

    /// Where stored centres can lie in `cell`: the rectangle of its geohash-6 cells' centres when
    /// every card in it keeps a geohash-6 cell (the whole cell lies below 65.83°), else all of it.
    static func centres(in cell: Geohash.Bounds) -> Geohash.Bounds {
        guard GeoCell.precision(atLatitude: cell.south) == GeoCell.keyPrecision, GeoCell.precision(atLatitude: cell.north) == GeoCell.keyPrecision,
            cell.north < 90
        else { return cell }
        return Geohash.Bounds(
            south: cell.south + Self.halfKeyCell.latitude, north: cell.north - Self.halfKeyCell.latitude,
            west: cell.west + Self.halfKeyCell.longitude, east: cell.east - Self.halfKeyCell.longitude)
    }

    /// The exact minimum great-circle distance in metres from a point to a cell (0 inside it).
    ///
    /// When the point's meridian crosses the cell, the nearest point is straight north or south:
    /// no point is nearer than its difference in latitude. Otherwise it is on one of the two
    /// meridian edges (along a parallel, distance grows with the difference in longitude, so a
    /// parallel edge is nearest at a corner). Along a meridian at longitude difference Δλ the
    /// distance is least at latitude ψ* = atan2(sin φ, cos φ cos Δλ) and grows away from it; so
    /// the nearest point of an edge is at ψ* if the edge reaches it, else at one of its ends. The
    /// candidates' haversine distances are compared, and the least one is the answer.
    static func minimumDistance(from location: GeoLocation, to cell: Geohash.Bounds) -> Double {
        let latitude = location.latitude
        let offset = Self.eastward(from: location.longitude, to: cell.west)
        if offset == 0 || offset + (cell.east - cell.west) >= 360 {
            let degrees = max(0, cell.south - latitude, latitude - cell.north)
            return degrees * .pi / 180 * GeoCell.earthRadius
        }
        func nearest(on edge: Double) -> Double {
            let difference = (edge - location.longitude) * .pi / 180
            let best = atan2(sin(latitude * .pi / 180), cos(latitude * .pi / 180) * cos(difference)) * 180 / .pi
            let candidates = cell.south < best && best < cell.north ? [cell.south, cell.north, best] : [cell.south, cell.north]
            return candidates.map { Self.haversine(latitude, location.longitude, $0, edge) }.min()!
        }
        return min(nearest(on: cell.west), nearest(on: cell.east))
    }

    /// Degrees to go east from one longitude to another, in [0, 360).
    private static func eastward(from start: Double, to end: Double) -> Double {
        let difference = (end - start).truncatingRemainder(dividingBy: 360)
        return difference < 0 ? difference + 360 : difference
    }

    /// The great-circle distance in metres, as the nearby feed's SQL computes it.
    public static func haversine(_ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double) -> Double {
        let phi1 = latitude1 * .pi / 180
        let phi2 = latitude2 * .pi / 180
        let a = pow(sin((phi2 - phi1) / 2), 2) + cos(phi1) * cos(phi2) * pow(sin((longitude2 - longitude1) * .pi / 180 / 2), 2)
        return 2 * GeoCell.earthRadius * asin(min(1, a.squareRoot()))
    }
}
