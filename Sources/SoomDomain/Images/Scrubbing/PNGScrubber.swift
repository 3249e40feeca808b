/// Removes metadata from a PNG by copying only the chunks that say how to draw it.
///
/// Kept: the critical chunks (IHDR, PLTE, IDAT, IEND, and unknown critical ones, which a decoder must
/// understand), colour and rendering chunks (cHRM, gAMA, iCCP, sBIT, sRGB, cICP, mDCv, cLLi, bKGD,
/// hIST, tRNS, pHYs, sPLT) and APNG animation (acTL, fcTL, fdAT). Dropped: every other ancillary chunk
/// (tEXt, iTXt, zTXt, eXIf, tIME, private ones) and anything after IEND. The first eXIf's orientation,
/// when 2…8, comes back as a minimal eXIf just before the first IDAT.
enum PNGScrubber {
    /// One chunk: `type` is the 4-byte name read big-endian; the chunk spans `start..<end` (length, type, data, CRC).
    private struct Chunk {
        let type: UInt32
        let start: Int
        let data: Range<Int>
        var end: Int { self.data.upperBound + 4 }
    }

    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    private static let kept: Set<UInt32> = Set(
        [
            "cHRM", "gAMA", "iCCP", "sBIT", "sRGB", "cICP", "mDCv", "cLLi", "bKGD", "hIST", "tRNS", "pHYs", "sPLT",
            "acTL", "fcTL", "fdAT",
        ].map(Self.name))
    private static let ihdr = Self.name("IHDR")
    private static let idat = Self.name("IDAT")
    private static let iend = Self.name("IEND")
    private static let exif = Self.name("eXIf")
    /// The largest chunk length PNG allows (2³¹ − 1).
    private static let maximumLength = 0x7FFF_FFFF

    /// The size in IHDR, which must be the first chunk.
    static func dimensions(of bytes: [UInt8]) throws(PhotoProblem) -> (width: Int, height: Int) {
        let header = try Self.chunk(in: bytes, at: Self.signature.count)
        guard bytes.matches(Self.signature, at: 0), header.type == Self.ihdr, header.data.count == 13,
            let width = bytes.bigEndian(at: header.data.lowerBound, width: 4),
            let height = bytes.bigEndian(at: header.data.lowerBound + 4, width: 4)
        else { throw .malformed("PNG: IHDR is not the first chunk") }
        guard width > 0, height > 0 else { throw .malformed("PNG: zero width or height") }
        return (width, height)
    }

    /// The file without metadata, and the orientation kept (2…8) if any.
    static func scrub(_ bytes: [UInt8]) throws(PhotoProblem) -> (bytes: [UInt8], orientation: Int?) {
        _ = try Self.dimensions(of: bytes)
        // First pass over the chunk headers only: check the structure and find the orientation, which
        // may be stored after the first IDAT although it is written back before it.
        var chunks: [Chunk] = []
        var offset = Self.signature.count
        var orientation: Int?
        var seenEXIF = false
        while chunks.last?.type != Self.iend {
            let chunk = try Self.chunk(in: bytes, at: offset)
            offset = chunk.end
            if chunk.type == Self.exif, !seenEXIF {
                seenEXIF = true
                orientation = OrientationEXIF.orientation(inEXIF: bytes[chunk.data]).flatMap { OrientationEXIF.meaningful.contains($0) ? $0 : nil }
            }
            chunks.append(chunk)
        }
        guard chunks.contains(where: { $0.type == Self.idat }) else { throw .malformed("PNG: no IDAT") }

        var output = Self.signature
        output.reserveCapacity(bytes.count)
        var pendingEXIF = orientation.map(OrientationEXIF.tiff(orientation:))
        for chunk in chunks {
            if chunk.type == Self.idat, let exif = pendingEXIF {
                Self.append(type: Self.exif, data: exif, to: &output)
                pendingEXIF = nil
            }
            if Self.isKept(chunk.type) { output += bytes[chunk.start..<chunk.end] }
        }
        return (output, orientation)
    }

    /// A chunk name as a number: its four ASCII bytes, big-endian.
    private static func name(_ ascii: String) -> UInt32 {
        ascii.utf8.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Critical chunks (bit 5 of the first letter clear: upper case) are always kept.
    private static func isKept(_ type: UInt32) -> Bool {
        type & 0x2000_0000 == 0 || Self.kept.contains(type)
    }

    /// The chunk at `offset`; its name must be four ASCII letters and all of it must be there.
    private static func chunk(in bytes: [UInt8], at offset: Int) throws(PhotoProblem) -> Chunk {
        guard let length = bytes.bigEndian(at: offset, width: 4), length <= Self.maximumLength,
            bytes.hasBytes(at: offset, count: 12 + length)
        else { throw .malformed("PNG: chunk at \(offset) runs past the end (no IEND)") }
        guard bytes[offset + 4..<offset + 8].allSatisfy({ (0x41...0x5A).contains($0 & 0xDF) }) else {
            throw .malformed("PNG: bad chunk name at \(offset)")
        }
        let type = bytes[offset + 4..<offset + 8].reduce(0) { $0 << 8 | UInt32($1) }
        return Chunk(type: type, start: offset, data: offset + 8..<offset + 8 + length)
    }

    /// Appends a whole chunk: length, type, data and the CRC of type and data.
    private static func append(type: UInt32, data: [UInt8], to output: inout [UInt8]) {
        output.appendBigEndian(data.count, width: 4)
        let start = output.count
        output.appendBigEndian(Int(type), width: 4)
        output += data
        let crc = CRC32.checksum(output[start...])
        output.appendBigEndian(Int(crc), width: 4)
    }
}
