/// Bounds-checked reads of unsigned integers and ASCII tags from bytes, for the photo scrubbers.
///
/// Offsets are the collection's own indices (so a slice is read where it lies in its array). Every
/// read returns nil instead of trapping when it would pass either end, whatever the offset.
extension RandomAccessCollection where Element == UInt8, Index == Int {
    /// The `width`-byte big-endian unsigned integer at `offset`, or nil when it is not all there.
    func bigEndian(at offset: Int, width: Int) -> Int? {
        guard self.hasBytes(at: offset, count: width) else { return nil }
        return (offset..<offset + width).reduce(0) { $0 << 8 | Int(self[$1]) }
    }

    /// The `width`-byte little-endian unsigned integer at `offset`, or nil when it is not all there.
    func littleEndian(at offset: Int, width: Int) -> Int? {
        guard self.hasBytes(at: offset, count: width) else { return nil }
        return (offset..<offset + width).reversed().reduce(0) { $0 << 8 | Int(self[$1]) }
    }

    /// Whether the bytes at `offset` are exactly `tag`.
    func matches(_ tag: [UInt8], at offset: Int) -> Bool {
        guard self.hasBytes(at: offset, count: tag.count) else { return false }
        return tag.indices.allSatisfy { self[offset + $0] == tag[$0] }
    }

    /// Whether `count` bytes starting at `offset` lie inside the collection (no overflow possible).
    func hasBytes(at offset: Int, count: Int) -> Bool {
        offset >= self.startIndex && count >= 0 && offset <= self.endIndex && count <= self.endIndex - offset
    }
}

extension [UInt8] {
    /// Appends `value` as `width` bytes, most significant first.
    mutating func appendBigEndian(_ value: Int, width: Int) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) { self.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    /// Appends `value` as `width` bytes, least significant first.
    mutating func appendLittleEndian(_ value: Int, width: Int) {
        for shift in stride(from: 0, to: width * 8, by: 8) { self.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    /// Overwrites `width` bytes at `offset` (which must be inside) with `value`, least significant first.
    mutating func setLittleEndian(_ value: Int, width: Int, at offset: Int) {
        for index in 0..<width { self[offset + index] = UInt8(truncatingIfNeeded: value >> (index * 8)) }
    }

    /// Overwrites `width` bytes at `offset` (which must be inside) with `value`, most significant first.
    mutating func setBigEndian(_ value: Int, width: Int, at offset: Int) {
        for index in 0..<width { self[offset + index] = UInt8(truncatingIfNeeded: value >> ((width - 1 - index) * 8)) }
    }
}
