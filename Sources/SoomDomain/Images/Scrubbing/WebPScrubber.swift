/// Removes metadata from a WebP by copying only its image chunks into a fresh RIFF container.
///
/// Kept: VP8X (its EXIF and XMP flags corrected), ICCP, ANIM, ANMF (rebuilt with only its ALPH, VP8 or
/// VP8L subchunks), ALPH, VP8 and VP8L. Dropped: EXIF, XMP, unknown chunks and anything past the RIFF
/// size. The EXIF orientation, when 2…8, comes back as a minimal EXIF chunk after the image data (where
/// the format orders it); only extended (VP8X) files can carry one, so a simple file never gets one.
/// Every VP8 and VP8L bitstream, animation frames included, must be within the size limits too.
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
    private static let anmf = Self.fourCC("ANMF")
    private static let exif = Self.fourCC("EXIF")
    /// Copied as they are (VP8X only as the first chunk, ANMF rebuilt).
    private static let kept: Set<UInt32> = [Self.fourCC("ICCP"), Self.fourCC("ANIM"), Self.alph, Self.vp8, Self.vp8l]
    /// ANMF's own fields before its subchunks: position, size, duration, flags.
    private static let frameHeaderLength = 16
    private static let exifFlag: UInt8 = 0x08
    private static let xmpFlag: UInt8 = 0x04
    /// "RIFF", the size, "WEBP".
    private static let headerLength = 12

    /// The canvas size (VP8X) or the frame size (a simple VP8 or VP8L file), from the first chunk's header
    /// (the first 30 bytes are enough).
    static func dimensions(of bytes: [UInt8]) throws(PhotoProblem) -> (width: Int, height: Int) {
        guard bytes.matches(Array("RIFF".utf8), at: 0), bytes.matches(Array("WEBP".utf8), at: 8),
            let fourCC = bytes.bigEndian(at: Self.headerLength, width: 4), let length = bytes.littleEndian(at: Self.headerLength + 4, width: 4)
        else { throw .malformed("WebP: no RIFF WEBP header") }
        let first = Chunk(fourCC: UInt32(fourCC), start: Self.headerLength, data: Self.headerLength + 8..<Self.headerLength + 8 + length)
        let size: (width: Int, height: Int)?
        switch first.fourCC {
        case Self.vp8x:
            // Flags (1 byte), reserved (3), canvas width − 1 and height − 1 (3 bytes each, little-endian).
            let start = first.data.lowerBound
            if first.data.count >= 10, let width = bytes.littleEndian(at: start + 4, width: 3),
                let height = bytes.littleEndian(at: start + 7, width: 3)
            {
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
        _ = try Self.dimensions(of: bytes)
        let riffEnd = try Self.riffEnd(bytes)
        var output = Array(bytes[0..<Self.headerLength])
        output.reserveCapacity(bytes.count)
        var offset = Self.headerLength
        var flagsOffset: Int?
        var orientation: Int?
        var seenEXIF = false
        while offset < riffEnd {
            let chunk = try Self.chunk(in: bytes, at: offset, before: riffEnd)
            offset = chunk.end
            switch chunk.fourCC {
            case Self.vp8x where chunk.start == Self.headerLength:
                flagsOffset = output.count + 8
                output += bytes[chunk.start..<chunk.end]
            case Self.anmf:
                try Self.appendFrame(bytes, chunk, to: &output)
            case Self.exif where !seenEXIF && flagsOffset != nil:
                seenEXIF = true
                orientation = OrientationEXIF.orientation(inEXIF: bytes[chunk.data]).flatMap { OrientationEXIF.meaningful.contains($0) ? $0 : nil }
            case let fourCC where Self.kept.contains(fourCC):
                try Self.checkBitstream(bytes, chunk)
                output += bytes[chunk.start..<chunk.end]
            default:
                break  // EXIF (read above), XMP, unknown chunks, a VP8X that is not first.
            }
        }
        if let flagsOffset {
            output[flagsOffset] &= ~(Self.exifFlag | Self.xmpFlag)
            if let orientation {
                output[flagsOffset] |= Self.exifFlag
                let tiff = OrientationEXIF.tiff(orientation: orientation)
                output.appendBigEndian(Int(Self.exif), width: 4)
                output.appendLittleEndian(tiff.count, width: 4)
                output += tiff
                if tiff.count % 2 == 1 { output.append(0) }
            }
        }
        output.setLittleEndian(output.count - 8, width: 4, at: 4)
        return (output, orientation)
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
        else { throw .malformed("WebP: chunk at \(offset) runs past the end of the RIFF container") }
        return Chunk(fourCC: UInt32(fourCC), start: offset, data: offset + 8..<offset + 8 + size)
    }

    /// Appends an animation frame with only its image subchunks (ALPH, VP8, VP8L), its size recomputed.
    private static func appendFrame(_ bytes: [UInt8], _ frame: Chunk, to output: inout [UInt8]) throws(PhotoProblem) {
        guard frame.data.count >= Self.frameHeaderLength else { throw .malformed("WebP: short ANMF at \(frame.start)") }
        let start = output.count
        output += bytes[frame.start..<frame.data.lowerBound + Self.frameHeaderLength]
        var offset = frame.data.lowerBound + Self.frameHeaderLength
        while offset < frame.data.upperBound {
            let chunk = try Self.chunk(in: bytes, at: offset, before: frame.data.upperBound)
            offset = chunk.end
            guard chunk.fourCC == Self.alph || chunk.fourCC == Self.vp8 || chunk.fourCC == Self.vp8l else { continue }
            try Self.checkBitstream(bytes, chunk)
            output += bytes[chunk.start..<chunk.end]
        }
        output.setLittleEndian(output.count - start - 8, width: 4, at: start + 4)
    }

    /// A VP8 or VP8L chunk must have a readable header within the limits: the canvas must not hide a
    /// larger bitstream. Other chunks pass.
    private static func checkBitstream(_ bytes: [UInt8], _ chunk: Chunk) throws(PhotoProblem) {
        guard chunk.fourCC == Self.vp8 || chunk.fourCC == Self.vp8l else { return }
        guard let size = Self.frameSize(bytes, chunk) else { throw .malformed("WebP: unreadable frame header at \(chunk.start)") }
        try PhotoScrubber.checkLimits(width: size.width, height: size.height)
    }

    /// The size in a VP8 key frame header or a VP8L header, or nil when it is not one.
    private static func frameSize(_ bytes: [UInt8], _ chunk: Chunk) -> (width: Int, height: Int)? {
        let start = chunk.data.lowerBound
        if chunk.fourCC == Self.vp8 {
            // Frame tag (3 bytes, bit 0 clear for a key frame), start code 9D 01 2A, then 14-bit sizes.
            guard chunk.data.count >= 10, bytes.hasBytes(at: start, count: 10), bytes[start] & 1 == 0,
                bytes.matches([0x9D, 0x01, 0x2A], at: start + 3),
                let width = bytes.littleEndian(at: start + 6, width: 2), let height = bytes.littleEndian(at: start + 8, width: 2)
            else { return nil }
            return (width & 0x3FFF, height & 0x3FFF)
        }
        // Signature 0x2F, then width − 1 and height − 1 in 14 bits each, least significant bit first.
        guard chunk.data.count >= 5, bytes.matches([0x2F], at: start), let bits = bytes.littleEndian(at: start + 1, width: 4) else { return nil }
        return ((bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1)
    }
}
