/// The one EXIF tag a scrubbed photo keeps: Orientation (0x0112), so that it still displays upright.
///
/// Reads it from IFD0 of a TIFF structure (the body of every EXIF block), in either byte order, with
/// every offset bounds-checked: a damaged EXIF simply has no orientation. Writes the smallest EXIF
/// that holds it: a little-endian TIFF header and an IFD0 with that single entry.
enum OrientationEXIF {
    /// The tag's meaning is "rotate or mirror"; 1 means "as stored", so it is never written.
    static let meaningful: ClosedRange<Int> = 2...8

    /// "Exif\0\0", which starts the TIFF data inside a JPEG APP1 (and, by some writers, a WebP EXIF chunk).
    static let header: [UInt8] = Array("Exif".utf8) + [0, 0]

    private static let tag = 0x0112
    private static let short = 3

    /// The orientation (1…8) in IFD0 of the TIFF data `tiff`, or nil when absent, out of range or unreadable.
    static func orientation(inTIFF tiff: ArraySlice<UInt8>) -> Int? {
        let base = tiff.startIndex
        let read: (Int, Int) -> Int?
        if tiff.matches(Array("II*\0".utf8), at: base) {
            read = { offset, width in tiff.littleEndian(at: base + offset, width: width) }
        } else if tiff.matches(Array("MM\0*".utf8), at: base) {
            read = { offset, width in tiff.bigEndian(at: base + offset, width: width) }
        } else {
            return nil
        }
        guard let ifd = read(4, 4), let count = read(ifd, 2) else { return nil }
        for index in 0..<count {
            let entry = ifd + 2 + index * 12
            guard let tag = read(entry, 2), let type = read(entry + 2, 2), let values = read(entry + 4, 4) else { return nil }
            guard tag == Self.tag else { continue }
            // A SHORT fits inline, first in the 4-byte value field, whatever the byte order.
            guard type == Self.short, values >= 1, let value = read(entry + 8, 2), (1...8).contains(value) else { return nil }
            return value
        }
        return nil
    }

    /// The orientation of an EXIF block that may or may not start with "Exif\0\0".
    static func orientation(inEXIF block: ArraySlice<UInt8>) -> Int? {
        let start = block.matches(Self.header, at: block.startIndex) ? block.startIndex + Self.header.count : block.startIndex
        return Self.orientation(inTIFF: block[start...])
    }

    /// A 26-byte TIFF: "II*\0", IFD0 at 8 holding one entry (Orientation, SHORT, 1, `orientation`), no next IFD.
    static func tiff(orientation: Int) -> [UInt8] {
        var bytes = Array("II*\0".utf8)
        bytes.reserveCapacity(26)
        bytes.appendLittleEndian(8, width: 4)
        bytes.appendLittleEndian(1, width: 2)
        bytes.appendLittleEndian(Self.tag, width: 2)
        bytes.appendLittleEndian(Self.short, width: 2)
        bytes.appendLittleEndian(1, width: 4)
        bytes.appendLittleEndian(orientation, width: 2)
        bytes.appendLittleEndian(0, width: 2)
        bytes.appendLittleEndian(0, width: 4)
        return bytes
    }
}
