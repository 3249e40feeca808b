/// Removes metadata from a JPEG by walking its marker segments and copying only those decoding needs.
///
/// Kept: SOI; DQT, DHT, DAC, DRI, DHP, EXP and the frame header (SOFn); each SOS with its entropy-coded
/// data; EOI. Also APP0 "JFIF" (rewritten without its thumbnail), APP2 "ICC_PROFILE" (how to read the
/// colours: its chunks joined, made anonymous by `ICCProfile`, and written back where the first was) and
/// the first APP14 "Adobe" (the colour transform, cut to the 12 bytes a decoder reads). Everything else is
/// dropped: APP1 (EXIF, XMP), the other APP2 (MPF secondary images, FlashPix), APP0 "JFXX" thumbnails,
/// APP3–13 (APP13 holds IPTC), APP15, COM, reserved markers and anything after EOI (where phones put the
/// other pictures of a multi-picture file). The first EXIF's orientation, when 2…8, comes back as a
/// minimal APP1 "Exif" where that EXIF was.
///
/// Refused: a second frame header (or a second SOI: one picture per file); a frame header of 0 or 2 or
/// more than 4 components, or whose length, precision, sampling factors or table numbers are not ones a
/// decoder takes; a scan header of 0 or more than 4 components or of the wrong length; ICC chunks that do
/// not make one whole profile; sizes over the limits.
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
    /// "Adobe", version, two flag words and the transform: what a decoder reads of APP14.
    private static let adobeLength = 12
    /// "ICC_PROFILE\0", then the chunk's number (from 1) and the number of chunks.
    private static let iccHeaderLength = 14
    /// The most profile bytes one APP2 segment holds.
    private static let iccChunkLength = 65_535 - 2 - 14
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
        var components: Set<UInt8>?
        var seenScan = false
        var seenJFIF = false
        var seenEXIF = false
        var seenAdobe = false
        var orientation: Int?
        /// The ICC chunks' data by number, and where in the output the profile goes.
        var profile: (chunks: [Int: ArraySlice<UInt8>], total: Int, at: Int)?
        while true {
            let segment = try Self.segment(in: bytes, at: offset)
            offset = segment.end
            let payload = segment.payload
            switch segment.marker {
            case Self.eoi:
                guard seenScan else { throw .malformed("JPEG: no scan") }
                output += [0xFF, Self.eoi]
                if let profile { output.insert(contentsOf: try Self.profileSegments(profile.chunks, total: profile.total), at: profile.at) }
                return (output, orientation)
            case Self.sos:
                guard let components else { throw .malformed("JPEG: scan before frame header") }
                try Self.checkScanHeader(bytes, segment, components: components)
                seenScan = true
                let dataEnd = try Self.entropyCodedDataEnd(in: bytes, from: segment.end)
                output += bytes[segment.start..<dataEnd]
                offset = dataEnd
            case let marker where Self.isFrameHeader(marker):
                guard components == nil else { throw .malformed("JPEG: more than one frame") }
                let size = try Self.frameSize(bytes, segment)
                try PhotoScrubber.checkLimits(width: size.width, height: size.height)
                components = try Self.checkFrameHeader(bytes, segment)
                output += bytes[segment.start..<segment.end]
            case let marker where Self.tables.contains(marker):
                output += bytes[segment.start..<segment.end]
            case 0xE0 where !seenJFIF && bytes.matches(Self.jfif, at: payload.lowerBound) && payload.count >= Self.jfifLength:
                seenJFIF = true
                // Same header, thumbnail 0×0 and no thumbnail pixels.
                output += [0xFF, 0xE0]
                output.appendBigEndian(2 + Self.jfifLength, width: 2)
                output += bytes[payload.lowerBound..<payload.lowerBound + Self.jfifLength - 2]
                output += [0, 0]
            case 0xE1 where !seenEXIF && bytes.matches(OrientationEXIF.header, at: payload.lowerBound):
                seenEXIF = true
                let tiff = bytes[payload.lowerBound + OrientationEXIF.header.count..<segment.end]
                if let value = OrientationEXIF.orientation(inTIFF: tiff), OrientationEXIF.meaningful.contains(value) {
                    orientation = value
                    let exif = OrientationEXIF.header + OrientationEXIF.tiff(orientation: value)
                    output += [0xFF, 0xE1]
                    output.appendBigEndian(2 + exif.count, width: 2)
                    output += exif
                }
            case 0xE2 where bytes.matches(Self.iccProfile, at: payload.lowerBound):
                guard payload.count > Self.iccHeaderLength else { throw .malformed("the colour profile is damaged") }
                let number = Int(bytes[payload.lowerBound + 12])
                let total = Int(bytes[payload.lowerBound + 13])
                var chunks = profile?.chunks ?? [:]
                guard total >= 1, (1...total).contains(number), profile.map({ $0.total == total }) ?? true, chunks[number] == nil else {
                    throw .malformed("the colour profile is damaged")
                }
                chunks[number] = bytes[payload.lowerBound + Self.iccHeaderLength..<payload.upperBound]
                profile = (chunks, total, profile?.at ?? output.count)
            case 0xEE where !seenAdobe && bytes.matches(Self.adobe, at: payload.lowerBound):
                seenAdobe = true
                // A decoder reads 12 bytes (a shorter one it ignores); what follows them is dropped.
                guard payload.count >= Self.adobeLength else { break }
                output += [0xFF, 0xEE]
                output.appendBigEndian(2 + Self.adobeLength, width: 2)
                output += bytes[payload.lowerBound..<payload.lowerBound + Self.adobeLength]
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

    /// The component identifiers of a frame header whose fields a decoder takes: its length for its
    /// 1, 3 or 4 components, precision 8 or 12 (2…16 for the lossless processes), sampling factors 1…4 and
    /// quantisation tables 0…3.
    private static func checkFrameHeader(_ bytes: [UInt8], _ segment: Segment) throws(PhotoProblem) -> Set<UInt8> {
        let start = segment.payload.lowerBound
        let count = Int(bytes[start + 5])
        guard [1, 3, 4].contains(count) else { throw .malformed("JPEG: a frame of \(count) colour components (1, 3 or 4 are valid)") }
        guard segment.payload.count == 6 + 3 * count else { throw .malformed("JPEG: the frame header's length does not match its components") }
        let lossless: Set<UInt8> = [0xC3, 0xC7, 0xCB, 0xCF]
        let precision = bytes[start]
        guard lossless.contains(segment.marker) ? (2...16).contains(precision) : precision == 8 || precision == 12 else {
            throw .malformed("JPEG: an unknown sample precision")
        }
        var identifiers: Set<UInt8> = []
        for index in 0..<count {
            let component = start + 6 + 3 * index
            let sampling = bytes[component + 1]
            guard (1...4).contains(sampling >> 4), (1...4).contains(sampling & 0x0F), bytes[component + 2] <= 3,
                identifiers.insert(bytes[component]).inserted
            else { throw .malformed("JPEG: a frame component with unknown sampling, table or identifier") }
        }
        return identifiers
    }

    /// A scan header must list 1…4 of the frame's components, in a segment of exactly that length.
    private static func checkScanHeader(_ bytes: [UInt8], _ segment: Segment, components: Set<UInt8>) throws(PhotoProblem) {
        let start = segment.payload.lowerBound
        guard let count = bytes.bigEndian(at: start, width: 1), (1...4).contains(count), segment.payload.count == 4 + 2 * count,
            (0..<count).allSatisfy({ components.contains(bytes[start + 1 + 2 * $0]) })
        else { throw .malformed("JPEG: a damaged scan header") }
    }

    /// The joined profile, made anonymous, in APP2 "ICC_PROFILE" segments: every chunk from 1 to `total` must be there.
    private static func profileSegments(_ chunks: [Int: ArraySlice<UInt8>], total: Int) throws(PhotoProblem) -> [UInt8] {
        guard chunks.count == total else { throw .malformed("the colour profile is incomplete") }
        let profile = try ICCProfile.anonymised((1...total).flatMap { chunks[$0] ?? [] })
        let parts = stride(from: 0, to: profile.count, by: Self.iccChunkLength).map { profile[$0..<min($0 + Self.iccChunkLength, profile.count)] }
        var segments: [UInt8] = []
        for (index, part) in parts.enumerated() {
            segments += [0xFF, 0xE2]
            segments.appendBigEndian(2 + Self.iccHeaderLength + part.count, width: 2)
            segments += Self.iccProfile + [UInt8(index + 1), UInt8(parts.count)] + part
        }
        return segments
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
        guard offset < bytes.count, bytes[offset] == 0xFF else { throw .malformed("JPEG: data where a marker should be") }
        var index = offset + 1
        while index < bytes.count, bytes[index] == 0xFF { index += 1 }
        guard index < bytes.count else { throw .malformed("JPEG: no end of image") }
        let marker = bytes[index]
        switch marker {
        case 0x00: throw .malformed("JPEG: stuffed zero outside a scan")
        case Self.soi: throw .malformed("JPEG: second start of image")
        case 0x01, 0xD0...0xD7, Self.eoi: return Segment(marker: marker, start: index - 1, payload: index + 1..<index + 1)
        default: break
        }
        guard let length = bytes.bigEndian(at: index + 1, width: 2), length >= 2, bytes.hasBytes(at: index + 1, count: length) else {
            throw .malformed("JPEG: a segment runs past the end of the file")
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
