/// Removes metadata from a still PNG by copying only the chunks that say how to draw it.
///
/// Kept: IHDR, PLTE, IDAT, IEND, and before the first IDAT the first of each colour and rendering chunk
/// (cHRM, gAMA, iCCP, sBIT, sRGB, cICP, mDCv, cLLi, bKGD, hIST, tRNS, pHYs). The colour profile (iCCP) is
/// rewritten: its free-text name becomes "ICC profile" and the profile is made anonymous (`ICCProfile`).
/// Dropped: every other ancillary chunk (tEXt, iTXt, zTXt, eXIf, tIME, sPLT — whose palette name is free
/// text —, fcTL and fdAT without animation, private ones), colour chunks after the image data (which a
/// decoder ignores), and anything after IEND. The first eXIf's orientation, when 2…8, comes back as a
/// minimal eXIf just before the first IDAT.
///
/// Refused: animation (acTL); an IHDR of a bit depth and colour type the PNG specification does not pair,
/// or with an unknown compression, filter or interlace method; a second IHDR; an unknown critical chunk
/// (a decoder must refuse it); a palette of the wrong size, missing for an indexed image or given to a
/// greyscale one; IDAT chunks that are not consecutive, or whose zlib stream is damaged, has bytes after its
/// end, or does not hold exactly the image's rows (`Inflate`); a kept chunk whose CRC is wrong.
enum PNGScrubber {
    /// One chunk: `type` is the 4-byte name read big-endian; the chunk spans `start..<end` (length, type, data, CRC).
    private struct Chunk {
        let type: UInt32
        let start: Int
        let data: Range<Int>
        var end: Int { self.data.upperBound + 4 }
    }

    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Ancillary chunks that say how to show the pixels, kept (the first of each, before the image data).
    private static let colourChunks: Set<UInt32> = Set(
        ["cHRM", "gAMA", "iCCP", "sBIT", "sRGB", "cICP", "mDCv", "cLLi", "bKGD", "hIST", "tRNS", "pHYs"].map(Self.name))
    private static let ihdr = Self.name("IHDR")
    private static let plte = Self.name("PLTE")
    private static let idat = Self.name("IDAT")
    private static let iend = Self.name("IEND")
    private static let iccp = Self.name("iCCP")
    private static let actl = Self.name("acTL")
    private static let exif = Self.name("eXIf")
    /// The largest chunk length PNG allows (2³¹ − 1).
    private static let maximumLength = 0x7FFF_FFFF
    /// Bit depths each colour type allows (greyscale, truecolour, indexed, greyscale with alpha, truecolour with alpha).
    private static let bitDepths: [Int: Set<Int>] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
    /// The name every kept colour profile gets (the original is free text).
    private static let profileName: [UInt8] = Array("ICC profile".utf8)

    /// The size in IHDR, which must be the first chunk and hold values the specification allows.
    static func dimensions(of bytes: [UInt8]) throws(PhotoProblem) -> (width: Int, height: Int) {
        try Self.header(of: bytes).size
    }

    /// The file without metadata, and the orientation kept (2…8) if any.
    static func scrub(_ bytes: [UInt8]) throws(PhotoProblem) -> (bytes: [UInt8], orientation: Int?) {
        let header = try Self.header(of: bytes)
        // First pass over the chunk headers only: check the structure and find the orientation, which
        // may be stored after the first IDAT although it is written back before it.
        var chunks: [Chunk] = []
        var offset = Self.signature.count
        var orientation: Int?
        var seenEXIF = false
        while chunks.last?.type != Self.iend {
            let chunk = try Self.chunk(in: bytes, at: offset)
            offset = chunk.end
            if chunk.type == Self.actl { throw .animated }
            if chunk.type == Self.exif, !seenEXIF {
                seenEXIF = true
                orientation = OrientationEXIF.orientation(inEXIF: bytes[chunk.data]).flatMap { OrientationEXIF.meaningful.contains($0) ? $0 : nil }
            }
            chunks.append(chunk)
        }
        let kept = try Self.keptChunks(chunks, header: header, in: bytes)
        try Inflate.checkImageData(kept.filter { $0.type == Self.idat }.map { bytes[$0.data] }, expected: header.rawLength)

        var output = Self.signature
        output.reserveCapacity(bytes.count)
        var pendingEXIF = orientation.map(OrientationEXIF.tiff(orientation:))
        for chunk in kept {
            if chunk.type == Self.idat, let exif = pendingEXIF {
                Self.append(type: Self.exif, data: exif, to: &output)
                pendingEXIF = nil
            }
            if chunk.type == Self.iccp {
                Self.append(type: Self.iccp, data: try Self.anonymousProfile(bytes[chunk.data]), to: &output)
            } else {
                output += bytes[chunk.start..<chunk.end]
            }
        }
        return (output, orientation)
    }

    /// IHDR's fields: the size and what the image data must inflate to.
    private struct Header {
        let size: (width: Int, height: Int)
        let colourType: Int
        let bitDepth: Int
        /// The bytes the IDAT stream inflates to: each row's filter byte and pixels, per interlace pass.
        let rawLength: Int
    }

    /// IHDR, which must be the first chunk: 13 bytes of size, bit depth, colour type, and compression,
    /// filter and interlace methods, all of values the specification allows.
    private static func header(of bytes: [UInt8]) throws(PhotoProblem) -> Header {
        let header = try Self.chunk(in: bytes, at: Self.signature.count)
        let start = header.data.lowerBound
        guard bytes.matches(Self.signature, at: 0), header.type == Self.ihdr, header.data.count == 13,
            let width = bytes.bigEndian(at: start, width: 4), let height = bytes.bigEndian(at: start + 4, width: 4)
        else { throw .malformed("PNG: IHDR is not the first chunk") }
        guard width > 0, height > 0 else { throw .malformed("PNG: zero width or height") }
        try PhotoScrubber.checkLimits(width: width, height: height)
        let depth = Int(bytes[start + 8])
        let colourType = Int(bytes[start + 9])
        guard Self.bitDepths[colourType]?.contains(depth) == true else {
            throw .malformed("PNG: bit depth \(depth) does not go with colour type \(colourType)")
        }
        guard bytes[start + 10] == 0, bytes[start + 11] == 0, bytes[start + 12] <= 1 else {
            throw .malformed("PNG: unknown compression, filter or interlace method")
        }
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colourType] ?? 1
        let passes: [(x: Int, y: Int, dx: Int, dy: Int)] =
            bytes[start + 12] == 0
            ? [(0, 0, 1, 1)] : [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        let rawLength = passes.reduce(0) { total, pass in
            let columns = (width - pass.x + pass.dx - 1) / pass.dx
            let rows = (height - pass.y + pass.dy - 1) / pass.dy
            guard columns > 0, rows > 0 else { return total }
            return total + rows * (1 + (columns * channels * depth + 7) / 8)
        }
        return Header(size: (width, height), colourType: colourType, bitDepth: depth, rawLength: rawLength)
    }

    /// The chunks to copy, in order, after checking how they fit together (see the type's description).
    private static func keptChunks(_ chunks: [Chunk], header: Header, in bytes: [UInt8]) throws(PhotoProblem) -> [Chunk] {
        var kept: [Chunk] = []
        var seen: Set<UInt32> = []
        var imageData: (first: Int, last: Int)?
        for (index, chunk) in chunks.enumerated() {
            let critical = chunk.type & 0x2000_0000 == 0
            switch chunk.type {
            case Self.ihdr where index == 0:
                break
            case Self.iend:
                guard chunk.data.isEmpty else { throw .malformed("PNG: IEND holds data") }
            case Self.idat:
                if let run = imageData, run.last != index - 1 { throw .malformed("PNG: the image data is not in one run") }
                imageData = (imageData?.first ?? index, index)
            case Self.plte:
                guard imageData == nil, !seen.contains(Self.plte) else { throw .malformed("PNG: a misplaced palette") }
                let entries = chunk.data.count / 3
                guard chunk.data.count % 3 == 0, (1...256).contains(entries), header.colourType != 0, header.colourType != 4,
                    header.colourType != 3 || entries <= 1 << header.bitDepth
                else { throw .malformed("PNG: a palette of the wrong size or for the wrong colour type") }
            case let type where critical:
                throw .malformed(type == Self.ihdr ? "PNG: a second IHDR" : "PNG: an unknown critical chunk")
            case let type where Self.colourChunks.contains(type) && imageData == nil && !seen.contains(type):
                break
            default:
                continue  // metadata, private chunks, and colour chunks after the image data or repeated
            }
            guard Self.hasValidCRC(chunk, in: bytes) else { throw .malformed("PNG: a chunk's checksum is wrong") }
            seen.insert(chunk.type)
            kept.append(chunk)
        }
        guard imageData != nil else { throw .malformed("PNG: no image data") }
        guard header.colourType != 3 || seen.contains(Self.plte) else { throw .malformed("PNG: an indexed image without a palette") }
        return kept
    }

    /// iCCP's data with a neutral name, compression method 0 and the profile made anonymous, recompressed.
    private static func anonymousProfile(_ data: ArraySlice<UInt8>) throws(PhotoProblem) -> [UInt8] {
        guard let end = data.firstIndex(of: 0), (1...79).contains(end - data.startIndex), data.index(after: end) < data.endIndex,
            data[end + 1] == 0
        else { throw .malformed("PNG: the colour profile chunk is damaged") }
        let profile = try Inflate.inflate(data[(end + 2)...], limit: ImageUploadRules.maximumBytes)
        return Self.profileName + [0, 0] + Inflate.storedZlib(try ICCProfile.anonymised(profile))
    }

    private static func hasValidCRC(_ chunk: Chunk, in bytes: [UInt8]) -> Bool {
        bytes.bigEndian(at: chunk.data.upperBound, width: 4) == Int(CRC32.checksum(bytes[chunk.start + 4..<chunk.data.upperBound]))
    }

    /// A chunk name as a number: its four ASCII bytes, big-endian.
    private static func name(_ ascii: String) -> UInt32 {
        ascii.utf8.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The chunk at `offset`; its name must be four ASCII letters and all of it must be there.
    private static func chunk(in bytes: [UInt8], at offset: Int) throws(PhotoProblem) -> Chunk {
        guard let length = bytes.bigEndian(at: offset, width: 4), length <= Self.maximumLength,
            bytes.hasBytes(at: offset, count: 12 + length)
        else { throw .malformed("PNG: a chunk runs past the end of the file (no IEND)") }
        guard bytes[offset + 4..<offset + 8].allSatisfy({ (0x41...0x5A).contains($0 & 0xDF) }) else {
            throw .malformed("PNG: a chunk's name is not four letters")
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
