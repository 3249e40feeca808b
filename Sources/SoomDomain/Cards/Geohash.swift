/// Standard geohash: a cell of a latitude/longitude grid named in base 32.
///
/// A hash of precision `p` holds `5p` bits that alternate longitude, latitude, longitude, … (so
/// `⌈5p/2⌉` bits of longitude, `⌊5p/2⌋` of latitude); each bit halves the range, a value on a
/// midpoint going to the upper half. Latitude 90 and longitude 180 fall in the last cell. The
/// prefix of length `q` of a hash is the cell of precision `q` containing it.
///
/// Cell edges are dyadic fractions of the ranges and are computed exactly, so a point on an edge
/// always lands on the same side: here, in `soom_geohash` (sql/0010) and in any other correct
/// implementation.
public enum Geohash {
    public static let alphabet: [Character] = Array("0123456789bcdefghjkmnpqrstuvwxyz")
    public static let precisions: ClosedRange<Int> = 1...12

    /// A cell's edges in degrees and its centre.
    public struct Bounds: Sendable, Hashable {
        public let south: Double
        public let north: Double
        public let west: Double
        public let east: Double

        public var centreLatitude: Double { (self.south + self.north) / 2 }
        public var centreLongitude: Double { (self.west + self.east) / 2 }
    }

    /// The cell of `precision` (1…12) containing the point, which must be within -90…90, -180…180.
    public static func encode(latitude: Double, longitude: Double, precision: Int) -> String {
        precondition(Self.precisions.contains(precision), "geohash precision must be within 1…12")
        precondition((-90...90).contains(latitude) && (-180...180).contains(longitude), "not a point on Earth")
        let row = Self.row(of: latitude, precision: precision)
        let column = Self.column(of: longitude, precision: precision)
        return Self.hash(row: row, column: column, precision: precision)
    }

    /// The cell a hash names; `nil` unless it is 1–12 characters of the (lowercase) alphabet.
    public static func decode(_ hash: some StringProtocol) -> Bounds? {
        guard Self.precisions.contains(hash.count) else { return nil }
        var row = 0
        var column = 0
        var bit = 0
        for character in hash {
            guard let value = Self.values[character] else { return nil }
            for shift in stride(from: 4, through: 0, by: -1) {
                let set = (value >> shift) & 1
                if bit.isMultiple(of: 2) { column = column << 1 | set } else { row = row << 1 | set }
                bit += 1
            }
        }
        return Self.bounds(row: row, column: column, precision: hash.count)
    }

    private static let values: [Character: Int] = Dictionary(uniqueKeysWithValues: Self.alphabet.enumerated().map { ($1, $0) })

    // MARK: The grid as rows and columns (south to north, west to east), for GeoCell and NearbyCover.

    static func latitudeBits(_ precision: Int) -> Int { 5 * precision / 2 }
    static func longitudeBits(_ precision: Int) -> Int { (5 * precision + 1) / 2 }

    /// Degrees of latitude a cell spans.
    static func height(_ precision: Int) -> Double { 180 / Double(1 << Self.latitudeBits(precision)) }
    /// Degrees of longitude a cell spans.
    static func width(_ precision: Int) -> Double { 360 / Double(1 << Self.longitudeBits(precision)) }

    static func rows(_ precision: Int) -> Int { 1 << Self.latitudeBits(precision) }
    static func columns(_ precision: Int) -> Int { 1 << Self.longitudeBits(precision) }

    static func row(of latitude: Double, precision: Int) -> Int {
        Self.index(of: latitude, from: -90, step: Self.height(precision), count: Self.rows(precision))
    }

    static func column(of longitude: Double, precision: Int) -> Int {
        Self.index(of: longitude, from: -180, step: Self.width(precision), count: Self.columns(precision))
    }

    /// The exact `⌊(value - lower) / step⌋`, the last index for the upper end. The quotient is
    /// only an estimate (the subtraction rounds), corrected against the edges `lower + i × step`,
    /// which are exact: `step` is a power of two times 45, `i < 2^30`, and the result needs at
    /// most 35 significant bits.
    static func index(of value: Double, from lower: Double, step: Double, count: Int) -> Int {
        var index = min(max(Int(((value - lower) / step).rounded(.down)), 0), count - 1)
        while index > 0, value < lower + Double(index) * step { index -= 1 }
        while index < count - 1, value >= lower + Double(index + 1) * step { index += 1 }
        return index
    }

    static func bounds(row: Int, column: Int, precision: Int) -> Bounds {
        let height = Self.height(precision)
        let width = Self.width(precision)
        let south = -90 + Double(row) * height
        let west = -180 + Double(column) * width
        return Bounds(south: south, north: south + height, west: west, east: west + width)
    }

    static func hash(row: Int, column: Int, precision: Int) -> String {
        let latitudeBits = Self.latitudeBits(precision)
        let longitudeBits = Self.longitudeBits(precision)
        var hash = ""
        hash.reserveCapacity(precision)
        var value = 0
        for bit in 0..<(5 * precision) {
            let set = bit.isMultiple(of: 2) ? column >> (longitudeBits - 1 - bit / 2) : row >> (latitudeBits - 1 - bit / 2)
            value = value << 1 | set & 1
            if bit % 5 == 4 {
                hash.append(Self.alphabet[value])
                value = 0
            }
        }
        return hash
    }
}
