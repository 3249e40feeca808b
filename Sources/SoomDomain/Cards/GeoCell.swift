import Foundation

/// Where a card is kept: never the point it was posted from, only the centre of the geohash cell
/// containing it, a cell at least `minimumWidth` wide and tall.
///
/// The precision `p` (6 down to 1) depends on the latitude alone. `p` is used iff every cell of
/// precision `p` in the point's cell of precision `p − 1` is at least 500 m wide, a cell being
/// measured where it is narrowest: at its poleward edge, or, for a cell touching a pole (which
/// narrows to nothing there), at its equatorward edge. The first `p` that qualifies, trying 6
/// first, is used; 1 if none does. Away from the poles this is "a p-cell is at least 500 m wide
/// at the poleward edge of its parent". The special case matters: a parent touching a pole would
/// otherwise never qualify, so points near a pole would fall to a precision-1 cell that overlaps
/// finer cells chosen further south.
///
/// So the cells partition the Earth: a point's cell is the cell chosen for every point in it,
/// and for its centre (checked over every latitude row in the tests). Precision 6 (1.22 × 0.61 km
/// at the equator) is used up to 65.83° of latitude, 5 up to 84.02°, 4 up to 88.59°, and 3 (cells
/// 156 km tall) for the polar caps beyond.
///
/// `key` is the precision-6 geohash of the centre, whatever `p` is: its prefixes of lengths 4, 5
/// and 6 find the card in a `NearbyCover`. The centre lies inside the cell, so
/// `key.prefix(precision) == hash`. `soom_geo_cell` in sql/0010 is the same rule in PostgreSQL.
public struct GeoCell: Sendable, Hashable {
    /// No cell is narrower or shorter than this, in metres.
    public static let minimumWidth = 500.0
    /// The finest precision a cell has, and the length of `key`.
    public static let keyPrecision = 6
    /// Mean Earth radius (IUGG) in metres: the sphere of every distance the nearby feed measures.
    public static let earthRadius = 6_371_008.8

    /// The centre of the cell, in degrees.
    public let latitude: Double
    public let longitude: Double
    /// The length of `hash`, 1…6.
    public let precision: Int
    /// The cell's geohash.
    public let hash: String
    /// The precision-6 geohash of the centre.
    public let key: String

    public init(containing location: GeoLocation) {
        let precision = Self.precision(atLatitude: location.latitude)
        let row = Geohash.row(of: location.latitude, precision: precision)
        let column = Geohash.column(of: location.longitude, precision: precision)
        let bounds = Geohash.bounds(row: row, column: column, precision: precision)
        self.latitude = bounds.centreLatitude
        self.longitude = bounds.centreLongitude
        self.precision = precision
        self.hash = Geohash.hash(row: row, column: column, precision: precision)
        self.key = Geohash.encode(latitude: self.latitude, longitude: self.longitude, precision: Self.keyPrecision)
    }

    /// The precision of the cells at a latitude (-90…90), as described above.
    public static func precision(atLatitude latitude: Double) -> Int {
        for precision in stride(from: Self.keyPrecision, to: 1, by: -1) {
            let parentHeight = Geohash.height(precision - 1)
            let parentSouth = -90 + Double(Geohash.row(of: latitude, precision: precision - 1)) * parentHeight
            let poleward = max(abs(parentSouth), abs(parentSouth + parentHeight))
            // The cells touching a pole are measured one row of cells from it.
            let narrowest = min(poleward, 90 - Geohash.height(precision))
            if Self.metres(ofLongitude: Geohash.width(precision), atLatitude: narrowest) >= Self.minimumWidth {
                return precision
            }
        }
        return 1
    }

    /// The length of an arc of a parallel. Written as `soom_geo_cell` computes it, operation for
    /// operation (the decisions are far from 500 m in any case: the tests check the margin).
    static func metres(ofLongitude degrees: Double, atLatitude latitude: Double) -> Double {
        degrees * cos(latitude * .pi / 180) * (2 * .pi * Self.earthRadius / 360)
    }
}
