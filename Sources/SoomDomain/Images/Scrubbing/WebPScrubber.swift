/// Removes metadata from a still WebP by copying only its image chunks into a fresh RIFF container.
///
/// A simple file (VP8 or VP8L first) becomes that one chunk. An extended file (VP8X first) becomes a
/// rebuilt VP8X (flags for what is kept, reserved bits zero), its colour profile (ICCP, made anonymous by
/// `ICCProfile`), its ALPH and its VP8 or VP8L; the EXIF orientation, when 2…8, comes back as a minimal
/// EXIF chunk after the image data (where the format orders it). Dropped: EXIF, XMP, unknown chunks and
/// anything past the RIFF size; pad bytes are written as zero.
///
/// Refused: animation (the VP8X flag, ANIM or ANMF chunks); a file without exactly one VP8 or VP8L
/// bitstream; an extended file whose canvas is not its bitstream's size, whose VP8X is not 10 bytes, whose
/// ALPH does not come right before a VP8 bitstream, or with a second VP8X or ICCP; a bitstream header a
/// decoder would refuse (not a key frame, an unknown version, a frame not shown); and sizes over the limits.
enum WebPScrubber {
    /// One chunk: `fourCC` read big-endian; the chunk spans `start..<end` (header, data, pad byte).
    private struct Chunk {
        let fourCC: UInt32
        let start: Int
        let data: Range<Int>
        var end: Int { self.data.upperBound + self.data.count % 2 }
    }

    private static let vp8 = Self.fourCC("VP8 ")
    private static let vp8l = Self.fourCC("VP8L")
    private static let vp8x = Self.fourCC("VP8X")
    private static let alph = Self.fourCC("ALPH")
    private static let anim = Self.fourCC("ANIM")
    private static let anmf = Self.fourCC("ANMF")
    private static let iccp = Self.fourCC("ICCP")
    private static let exif = Self.fourCC("EXIF")
    private static let alphaFlag: UInt8 = 0x10
    private static let iccFlag: UInt8 = 0x20
    private static let exifFlag: UInt8 = 0x08
    private static let animationFlag: UInt8 = 0x02
    /// VP8X's data: flags (1 byte), reserved (3), canvas width − 1 and height − 1 (3 bytes each, little-endian).
    private static let vp8xLength = 10
    /// "RIFF", the size, "WEBP".
    private static let headerLength = 12

    /// The canvas size (VP8X) or the frame size (a simple VP8 or VP8L file), from the first chunk's header
    /// (the first 30 bytes are enough). Throws `.animated` when VP8X says the file is animated.
    static func dimensions(of bytes: [UInt8]) throws(PhotoProblem) -> (width: Int, height: Int) {
        guard bytes.matches(Array("RIFF".utf8), at: 0), bytes.matches(Array("WEBP".utf8), at: 8),
            let fourCC = bytes.bigEndian(at: Self.headerLength, width: 4), let length = bytes.littleEndian(at: Self.headerLength + 4, width: 4)
        else { throw .malformed("WebP: no RIFF WEBP header") }
        let first = Chunk(fourCC: UInt32(fourCC), start: Self.headerLength, data: Self.headerLength + 8..<Self.headerLength + 8 + length)
        let size: (width: Int, height: Int)?
        switch first.fourCC {
        case Self.vp8x:
            let start = first.data.lowerBound
            if first.data.count >= Self.vp8xLength, let flags = bytes.littleEndian(at: start, width: 1),
                let width = bytes.littleEndian(at: start + 4, width: 3), let height = bytes.littleEndian(at: start + 7, width: 3)
            {
                if UInt8(flags) & Self.animationFlag != 0 { throw .animated }
                size = (width + 1, height + 1)
            } else {
                size = nil
            }
        case Self.vp8, Self.vp8l: size = Self.frameSize(bytes, first)
        default: throw .malformed("WebP: the first chunk is not VP8X, VP8 or VP8L")
        }
        guard let size, size.width > 0, size.height > 0 else { throw .malformed("WebP: unreadable image header") }
        return size
    }

    /// The file without metadata, and the orientation kept (2…8) if any.
    static func scrub(_ bytes: [UInt8]) throws(PhotoProblem) -> (bytes: [UInt8], orientation: Int?) {
        let canvas = try Self.dimensions(of: bytes)
        let riffEnd = try Self.riffEnd(bytes)
        var chunks: [Chunk] = []
        var offset = Self.headerLength
        while offset < riffEnd {
            let chunk = try Self.chunk(in: bytes, at: offset, before: riffEnd)
            chunks.append(chunk)
            offset = chunk.end
        }
        if chunks.contains(where: { $0.fourCC == Self.anim || $0.fourCC == Self.anmf }) { throw .animated }
        let bitstreams = chunks.indices.filter { chunks[$0].fourCC == Self.vp8 || chunks[$0].fourCC == Self.vp8l }
        guard let image = bitstreams.first else { throw .malformed("WebP: no image data") }
        guard bitstreams.count == 1 else { throw .malformed("WebP: more than one image") }
        guard let size = Self.frameSize(bytes, chunks[image]) else { throw .malformed("WebP: unreadable image header") }
        try PhotoScrubber.checkLimits(width: size.width, height: size.height)

        var output = Array(bytes[0..<Self.headerLength])
        output.reserveCapacity(bytes.count)
        guard chunks[0].fourCC == Self.vp8x else {
            // A simple file: its one bitstream is its first chunk (`dimensions` read its size there).
            Self.append(chunks[image].fourCC, bytes[chunks[image].data], to: &output)
            output.setLittleEndian(output.count - 8, width: 4, at: 4)
            return (output, nil)
        }
        let header = chunks[0].data
        guard header.count == Self.vp8xLength else { throw .malformed("WebP: the extended header has the wrong size") }
        guard size == canvas else { throw .malformed("WebP: the canvas size is not the image's size") }
        guard !chunks.dropFirst().contains(where: { $0.fourCC == Self.vp8x }) else { throw .malformed("WebP: a second extended header") }
        let alpha = chunks.indices.filter { chunks[$0].fourCC == Self.alph }
        guard alpha.allSatisfy({ $0 == image - 1 }), alpha.isEmpty || chunks[image].fourCC == Self.vp8 else {
            throw .malformed("WebP: alpha data that is not right before a lossy image")
        }
        let profiles = chunks.indices.filter { chunks[$0].fourCC == Self.iccp }
        guard profiles.count <= 1, profiles.allSatisfy({ $0 < image }) else { throw .malformed("WebP: a misplaced colour profile") }
        var profile: [UInt8]?
        if let index = profiles.first { profile = try ICCProfile.anonymised(Array(bytes[chunks[index].data])) }
        let orientation = chunks.first { $0.fourCC == Self.exif }.flatMap { chunk in
            OrientationEXIF.orientation(inEXIF: bytes[chunk.data]).flatMap { OrientationEXIF.meaningful.contains($0) ? $0 : nil }
        }

        var flags = bytes[header.lowerBound] & Self.alphaFlag
        if profile != nil { flags |= Self.iccFlag }
        if orientation != nil { flags |= Self.exifFlag }
        Self.append(Self.vp8x, [flags, 0, 0, 0] + bytes[header.lowerBound + 4..<header.upperBound], to: &output)
        if let profile { Self.append(Self.iccp, profile, to: &output) }
        if let index = alpha.first { Self.append(Self.alph, try Self.alphaData(bytes[chunks[index].data], size: size), to: &output) }
        Self.append(chunks[image].fourCC, bytes[chunks[image].data], to: &output)
        if let orientation { Self.append(Self.exif, OrientationEXIF.tiff(orientation: orientation), to: &output) }
        output.setLittleEndian(output.count - 8, width: 4, at: 4)
        return (output, orientation)
    }

    /// ALPH's data as a decoder reads it: a header byte of known values (reserved bits clear, no or lossless
    /// compression, filter 0…3, pre-processing 0…1); uncompressed, exactly one byte a pixel (more is dropped).
    private static func alphaData(_ data: ArraySlice<UInt8>, size: (width: Int, height: Int)) throws(PhotoProblem) -> ArraySlice<UInt8> {
        guard let header = data.first, header >> 6 == 0, header >> 4 & 3 <= 1, header & 3 <= 1 else {
            throw .malformed("WebP: the alpha data's header is damaged")
        }
        guard header & 3 == 0 else { return data }
        guard data.count - 1 >= size.width * size.height else { throw .malformed("WebP: the alpha data is shorter than the image") }
        return data.prefix(1 + size.width * size.height)
    }

    /// Appends a chunk: its name, size, data and a zero pad byte when the size is odd.
    private static func append(_ fourCC: UInt32, _ data: some Collection<UInt8>, to output: inout [UInt8]) {
        output.appendBigEndian(Int(fourCC), width: 4)
        output.appendLittleEndian(data.count, width: 4)
        output += data
        if data.count % 2 == 1 { output.append(0) }
    }

    /// A chunk name as a number: its four ASCII bytes, big-endian.
    private static func fourCC(_ ascii: String) -> UInt32 {
        ascii.utf8.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Where the RIFF container ends (bytes after it are dropped); throws when it claims more than there is.
    private static func riffEnd(_ bytes: [UInt8]) throws(PhotoProblem) -> Int {
        guard bytes.matches(Array("RIFF".utf8), at: 0), bytes.matches(Array("WEBP".utf8), at: 8),
            let size = bytes.littleEndian(at: 4, width: 4), size >= 4, bytes.hasBytes(at: 8, count: size)
        else { throw .malformed("WebP: RIFF header missing or larger than the file") }
        return 8 + size
    }

    /// The chunk at `offset`, which must end (with its pad byte) by `limit`.
    private static func chunk(in bytes: [UInt8], at offset: Int, before limit: Int) throws(PhotoProblem) -> Chunk {
        guard let fourCC = bytes.bigEndian(at: offset, width: 4), let size = bytes.littleEndian(at: offset + 4, width: 4),
            offset + 8 + size + size % 2 <= limit
        else { throw .malformed("WebP: a chunk runs past the end of the file") }
        return Chunk(fourCC: UInt32(fourCC), start: offset, data: offset + 8..<offset + 8 + size)
    }

    /// The size in a VP8 key frame header or a VP8L header, or nil when it is not one a decoder takes
    /// (libwebp's checks: a shown key frame of version 0…3 whose first partition fits; VP8L version 0).
    private static func frameSize(_ bytes: [UInt8], _ chunk: Chunk) -> (width: Int, height: Int)? {
        let start = chunk.data.lowerBound
        if chunk.fourCC == Self.vp8 {
            // Frame tag (3 bytes, little-endian: key frame bit 0 clear, version in bits 1–3, shown in bit 4,
            // the first partition's size above), start code 9D 01 2A, then 14-bit sizes.
            guard chunk.data.count >= 10, let tag = bytes.littleEndian(at: start, width: 3), tag & 1 == 0, tag >> 1 & 7 <= 3, tag >> 4 & 1 == 1,
                tag >> 5 < chunk.data.count, bytes.matches([0x9D, 0x01, 0x2A], at: start + 3),
                let width = bytes.littleEndian(at: start + 6, width: 2), let height = bytes.littleEndian(at: start + 8, width: 2),
                width & 0x3FFF > 0, height & 0x3FFF > 0
            else { return nil }
            return (width & 0x3FFF, height & 0x3FFF)
        }
        // Signature 0x2F, then width − 1 and height − 1 in 14 bits each, least significant bit first, the
        // alpha hint (1 bit) and the version (3 bits, 0).
        guard chunk.data.count >= 5, bytes.matches([0x2F], at: start), let bits = bytes.littleEndian(at: start + 1, width: 4), bits >> 29 == 0
        else { return nil }
        return ((bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1)
    }
}
