/// Removes metadata from a JPEG by walking its marker segments and copying only those decoding needs.
///
/// Kept: SOI; DQT, DHT, DAC, DRI, DHP, EXP and every SOFn frame header; each SOS with its entropy-coded
/// data; EOI. Also APP0 "JFIF" (rewritten without its thumbnail), APP2 "ICC_PROFILE" (how to read the
/// colours) and APP14 "Adobe" (the colour transform). Everything else is dropped: APP1 (EXIF, XMP),
/// the other APP2 (MPF secondary images, FlashPix), APP0 "JFXX" thumbnails, APP3–13 (APP13 holds
/// IPTC), APP15, COM, reserved markers and anything after EOI. The first EXIF's orientation, when 2…8,
/// comes back as a minimal APP1 "Exif" where that EXIF was.
enum JPEGScrubber {
    /// One marker segment: `marker` is the byte after 0xFF; `payload` excludes the two length bytes.
    private struct Segment {
        let marker: UInt8
        let start: Int
        let payload: Range<Int>
        var end: Int { self.payload.upperBound }
    }

    private static let soi: UInt8 = 0xD8
    private static let eoi: UInt8 = 0xD9
    private static let sos: UInt8 = 0xDA
    /// Tables and decoding parameters, copied as they are: DHT, DAC, DQT, DRI, DHP, EXP.
    private static let tables: Set<UInt8> = [0xC4, 0xCC, 0xDB, 0xDD, 0xDE, 0xDF]
    private static let jfif: [UInt8] = Array("JFIF".utf8) + [0]
    private static let iccProfile: [UInt8] = Array("ICC_PROFILE".utf8) + [0]
    private static let adobe: [UInt8] = Array("Adobe".utf8)
    /// The JFIF payload up to and including the thumbnail's width and height bytes.
    private static let jfifLength = 14

    /// The size in the first frame header (SOFn), reading only the segments before it.
    static func dimensions(of bytes: [UInt8]) throws(PhotoProblem) -> (width: Int, height: Int) {
        var offset = try Self.afterSOI(bytes)
        while true {
            let segment = try Self.segment(in: bytes, at: offset)
            if Self.isFrameHeader(segment.marker) { return try Self.frameSize(bytes, segment) }
            if segment.marker == Self.sos || segment.marker == Self.eoi { throw .malformed("JPEG: no frame header before the scan") }
            offset = segment.end
        }
    }

    /// The file without metadata, and the orientation kept (2…8) if any.
    static func scrub(_ bytes: [UInt8]) throws(PhotoProblem) -> (bytes: [UInt8], orientation: Int?) {
        var output: [UInt8] = [0xFF, Self.soi]
        output.reserveCapacity(bytes.count)
        var offset = try Self.afterSOI(bytes)
        var seenFrame = false
        var seenScan = false
        var seenJFIF = false
        var seenEXIF = false
        var orientation: Int?
        while true {
            let segment = try Self.segment(in: bytes, at: offset)
            offset = segment.end
            switch segment.marker {
            case Self.eoi:
                guard seenScan else { throw .malformed("JPEG: no scan") }
                output += [0xFF, Self.eoi]
                return (output, orientation)
            case Self.sos:
                guard seenFrame else { throw .malformed("JPEG: scan before frame header") }
                seenScan = true
                let dataEnd = try Self.entropyCodedDataEnd(in: bytes, from: segment.end)
                output += bytes[segment.start..<dataEnd]
                offset = dataEnd
            case let marker where Self.isFrameHeader(marker):
                // Every frame, not just the first that `dimensions` reads, must be within the limits.
                let size = try Self.frameSize(bytes, segment)
                try PhotoScrubber.checkLimits(width: size.width, height: size.height)
                seenFrame = true
                output += bytes[segment.start..<segment.end]
            case let marker where Self.tables.contains(marker):
                output += bytes[segment.start..<segment.end]
            case 0xE0 where !seenJFIF && bytes.matches(Self.jfif, at: segment.payload.lowerBound) && segment.payload.count >= Self.jfifLength:
                seenJFIF = true
                // Same header, thumbnail 0×0 and no thumbnail pixels.
                output += [0xFF, 0xE0]
                output.appendBigEndian(2 + Self.jfifLength, width: 2)
                output += bytes[segment.payload.lowerBound..<segment.payload.lowerBound + Self.jfifLength - 2]
                output += [0, 0]
            case 0xE1 where !seenEXIF && bytes.matches(OrientationEXIF.header, at: segment.payload.lowerBound):
                seenEXIF = true
                let tiff = bytes[segment.payload.lowerBound + OrientationEXIF.header.count..<segment.end]
                if let value = OrientationEXIF.orientation(inTIFF: tiff), OrientationEXIF.meaningful.contains(value) {
                    orientation = value
                    let exif = OrientationEXIF.header + OrientationEXIF.tiff(orientation: value)
                    output += [0xFF, 0xE1]
                    output.appendBigEndian(2 + exif.count, width: 2)
                    output += exif
                }
            case 0xE2 where bytes.matches(Self.iccProfile, at: segment.payload.lowerBound),
                0xEE where bytes.matches(Self.adobe, at: segment.payload.lowerBound):
                output += bytes[segment.start..<segment.end]
            default:
                break  // APPn metadata, COM, DNL, reserved and stray standalone markers.
            }
        }
    }

    /// The offset after the SOI marker; throws unless the file starts with one.
    private static func afterSOI(_ bytes: [UInt8]) throws(PhotoProblem) -> Int {
        guard bytes.matches([0xFF, Self.soi], at: 0) else { throw .malformed("JPEG: no start of image") }
        return 2
    }

    /// SOF0–SOF15 except C4 (DHT), C8 (JPG) and CC (DAC).
    private static func isFrameHeader(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    /// Width and height of a frame header; a height of 0 (defined later by DNL) is refused.
    private static func frameSize(_ bytes: [UInt8], _ segment: Segment) throws(PhotoProblem) -> (width: Int, height: Int) {
        let start = segment.payload.lowerBound
        guard segment.payload.count >= 6, let height = bytes.bigEndian(at: start + 1, width: 2), let width = bytes.bigEndian(at: start + 3, width: 2)
        else { throw .malformed("JPEG: short frame header") }
        guard width > 0, height > 0 else { throw .malformed("JPEG: zero width or height") }
        return (width, height)
    }

    /// The segment whose marker is at `offset` (after any 0xFF fill bytes). Standalone markers
    /// (SOI, EOI, RSTn, TEM) have an empty payload; the others carry a length that must fit.
    private static func segment(in bytes: [UInt8], at offset: Int) throws(PhotoProblem) -> Segment {
        guard offset < bytes.count, bytes[offset] == 0xFF else { throw .malformed("JPEG: expected a marker at \(offset)") }
        var index = offset + 1
        while index < bytes.count, bytes[index] == 0xFF { index += 1 }
        guard index < bytes.count else { throw .malformed("JPEG: no end of image") }
        let marker = bytes[index]
        switch marker {
        case 0x00: throw .malformed("JPEG: stuffed zero outside a scan at \(index)")
        case Self.soi: throw .malformed("JPEG: second start of image")
        case 0x01, 0xD0...0xD7, Self.eoi: return Segment(marker: marker, start: index - 1, payload: index + 1..<index + 1)
        default: break
        }
        guard let length = bytes.bigEndian(at: index + 1, width: 2), length >= 2, bytes.hasBytes(at: index + 1, count: length) else {
            throw .malformed("JPEG: segment \(marker) at \(index - 1) runs past the end")
        }
        return Segment(marker: marker, start: index - 1, payload: index + 3..<index + 1 + length)
    }

    /// Where the entropy-coded data that starts at `offset` ends: the next 0xFF that is neither a
    /// stuffed 0xFF00 nor a restart marker RST0–7.
    private static func entropyCodedDataEnd(in bytes: [UInt8], from offset: Int) throws(PhotoProblem) -> Int {
        var index = offset
        while let found = bytes[index...].firstIndex(of: 0xFF) {
            guard found + 1 < bytes.count else { break }
            switch bytes[found + 1] {
            case 0x00, 0xD0...0xD7: index = found + 2
            default: return found
            }
        }
        throw .malformed("JPEG: scan data runs past the end")
    }
}
