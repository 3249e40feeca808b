import Foundation
import SoomDomain
import Testing

/// Real photos (Fixtures/Photos, made by `generate.sh` with ImageMagick, cwebp and exiftool), each with GPS,
/// camera, serials, dates, orientation 6, XMP and comments; checked with small walkers written here, not
/// with the scrubber's own parsers.
@Suite("Photo scrubbing: metadata removed losslessly, orientation kept, sizes checked from the headers")
struct PhotoScrubberTests {
    struct Fixture: Sendable, CustomTestStringConvertible {
        let name: String
        let format: ImageFormat
        var testDescription: String { self.name }

        func bytes() throws -> [UInt8] {
            let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/Photos")
            return [UInt8](try Data(contentsOf: directory.appendingPathComponent(self.name)))
        }
    }

    static let fixtures: [Fixture] =
        ["jpeg-baseline.jpg", "jpeg-progressive.jpg", "jpeg-icc.jpg", "jpeg-trailer.jpg"].map { Fixture(name: $0, format: .jpeg) }
        + [Fixture(name: "png-metadata.png", format: .png)]
        + ["webp-lossy.webp", "webp-lossless.webp", "webp-exif-prefix.webp"].map { Fixture(name: $0, format: .webp) }

    /// Text from the metadata that must not survive (the GPS position is checked through the EXIF bytes).
    static let secrets = [
        "SoomSecret", "soom secret", "SOOMBODY0002", "SOOMSERIAL0001", "SoomIptc", "2024:05:01", "<x:xmpmeta", "ns.adobe.com/xap",
        "Photoshop 3.0", "Image::ExifTool", "SOOMTRAILER", "date:create", "tEXt", "iTXt", "zTXt", "tIME", "XMP ", "GPS",
    ]

    /// Orientation 6 as the smallest little-endian TIFF: header, IFD0 with one SHORT entry 0x0112, no next IFD.
    static let minimalTIFF: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0]

    @Test("every metadata block is gone; only the allowed blocks and a minimal EXIF remain", arguments: fixtures)
    func removesMetadata(fixture: Fixture) throws {
        let input = try fixture.bytes()
        let output = try PhotoScrubber.scrub(input, format: fixture.format).bytes
        #expect(input.contains(text: "SoomSecretMake"), "the fixture lost its metadata")
        for secret in Self.secrets { #expect(!output.contains(text: secret), "\(secret) survived") }
        switch fixture.format {
        case .jpeg:
            let walk = try #require(JPEGWalk(output))
            #expect(walk.end == output.count)
            for segment in walk.segments {
                switch segment.marker {
                case 0xC0...0xCF, 0xDA, 0xDB, 0xDD: break
                case 0xE0: #expect(segment.payload == Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0])
                case 0xE1: #expect(segment.payload == Array("Exif\0\0".utf8) + Self.minimalTIFF)
                case 0xE2: #expect(segment.payload.starts(with: Array("ICC_PROFILE\0".utf8)))
                default: Issue.record("segment \(String(segment.marker, radix: 16)) left in")
                }
            }
            #expect(walk.segments.filter { $0.marker == 0xE1 }.count == 1)
            #expect(walk.segments.contains { $0.marker == 0xE2 } == (fixture.name == "jpeg-icc.jpg"))
        case .png:
            let chunks = try #require(PNGWalk(output)?.chunks)
            let allowed: Set = [
                "IHDR", "PLTE", "IDAT", "IEND", "cHRM", "gAMA", "iCCP", "sBIT", "sRGB", "cICP", "mDCv", "cLLi", "bKGD", "hIST", "tRNS", "pHYs",
                "eXIf",
            ]
            #expect(Set(chunks.map(\.type)).isSubset(of: allowed))
            #expect(chunks.filter { $0.type == "eXIf" }.map(\.data) == [Self.minimalTIFF])
            let exif = try #require(chunks.firstIndex { $0.type == "eXIf" })
            #expect(chunks[exif + 1].type == "IDAT")
            #expect(output.suffix(12) == input.suffix(12), "IEND last, nothing after it")
        case .webp:
            let chunks = try #require(WebPWalk(output)?.chunks)
            #expect(chunks.map(\.fourCC).filter { !["VP8X", "ALPH", "VP8 ", "VP8L", "EXIF"].contains($0) } == [])
            #expect(chunks.last?.fourCC == "EXIF" && chunks.last?.data == Self.minimalTIFF)
            let alpha: UInt8 = chunks.contains { $0.fourCC == "ALPH" } ? 0x10 : 0
            #expect(chunks.first?.data.prefix(4) == [0x08 | alpha, 0, 0, 0], "VP8X flags: EXIF (and alpha) only, reserved bits zero")
            #expect(Int(output[4]) | Int(output[5]) << 8 | Int(output[6]) << 16 | Int(output[7]) << 24 == output.count - 8)
        }
    }

    @Test("the orientation and the size survive; scrubbing twice changes nothing", arguments: fixtures)
    func orientationSizeIdempotence(fixture: Fixture) throws {
        let input = try fixture.bytes()
        let first = try PhotoScrubber.scrub(input, format: fixture.format)
        #expect(first.orientation == 6 && first.width == 64 && first.height == 48)
        #expect(first.bytes.count < input.count)
        #expect(try PhotoScrubber.dimensions(of: input, format: fixture.format) == (64, 48))
        let second = try PhotoScrubber.scrub(first.bytes, format: fixture.format)
        #expect(second == first)
    }

    @Test("the compressed image data is byte for byte the same", arguments: fixtures)
    func imageDataUnchanged(fixture: Fixture) throws {
        let input = try fixture.bytes()
        let output = try PhotoScrubber.scrub(input, format: fixture.format).bytes
        let before = try #require(Self.imageData(input, fixture.format))
        #expect(before.count > 100)
        #expect(Self.imageData(output, fixture.format) == before)
    }

    @Test("sizes: read from the headers, refused over 8,192 a side or 40 megapixels before anything else", arguments: fixtures)
    func limits(fixture: Fixture) throws {
        let input = try fixture.bytes()
        // 8192 × 4882 = 39,993,344 pixels; 8192 × 4883 = 40,001,536.
        let cases = [
            (50_000, 50_000, false), (8192, 4882, true), (4882, 8192, true), (8192, 4883, false), (8193, 100, false), (100, 8193, false),
            (7000, 7000, false),
        ]
        for (width, height, accepted) in cases {
            let patched = try #require(Self.patch(input, fixture.format, width: width, height: height))
            if accepted {
                #expect(try PhotoScrubber.dimensions(of: patched, format: fixture.format) == (width, height))
            } else {
                #expect(throws: PhotoProblem.tooLarge(width: width, height: height)) { try PhotoScrubber.scrub(patched, format: fixture.format) }
            }
        }
        if fixture.format != .webp {  // VP8X stores width − 1: it cannot say 0
            let empty = try #require(Self.patch(input, fixture.format, width: 0, height: 48))
            #expect(Self.isMalformed(empty, fixture.format))
        }
        let sof = JPEGWalk(input)?.segments.first { $0.marker == 0xC0 || $0.marker == 0xC2 }
        let header = [ImageFormat.jpeg: sof.map { $0.offset + 19 }, .png: 33, .webp: 30][fixture.format] ?? nil
        #expect(try PhotoScrubber.dimensions(of: Array(input.prefix(try #require(header))), format: fixture.format) == (64, 48), "headers only")
    }

    @Test("truncated files and garbage after the signature are malformed, never a trap", arguments: fixtures)
    func truncatedAndGarbage(fixture: Fixture) throws {
        let input = try fixture.bytes()
        let end = try #require(Self.structuralEnd(input, fixture.format))
        for cut in Array(0..<64) + Array(stride(from: 64, to: end, by: 29)) + [end - 2, end - 1] {
            #expect(Self.isMalformed(Array(input.prefix(cut)), fixture.format), "cut at \(cut)")
        }
        var random = SplitMix64(seed: 7)
        for length in [0, 1, 7, 20, 200, 5000] {
            var garbage = Array(input.prefix(fixture.format == .webp ? 12 : fixture.format == .png ? 8 : 2))
            garbage += (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            if fixture.format == .webp { garbage.replaceSubrange(4..<8, with: Self.littleEndian(garbage.count - 8)) }
            #expect(Self.isMalformed(garbage, fixture.format), "\(length) bytes of garbage")
        }
    }

    @Test("random byte flips only ever return or throw; what returns is stable", arguments: fixtures)
    func fuzz(fixture: Fixture) throws {
        let input = try fixture.bytes()
        var random = SplitMix64(seed: UInt64(input.count))
        for _ in 0..<300 {
            var bytes = input
            for _ in 0...Int.random(in: 0...3, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            }
            guard let scrubbed = try? PhotoScrubber.scrub(bytes, format: fixture.format) else { continue }
            #expect(try PhotoScrubber.scrub(scrubbed.bytes, format: fixture.format) == scrubbed)
        }
    }

    @Test("JPEG: a JFIF thumbnail is cut; JFXX, MPF, APP15, COM and XMP segments are dropped")
    func jpegSegments() throws {
        let clean = try PhotoScrubber.scrub(try Fixture(name: "jpeg-baseline.jpg", format: .jpeg).bytes(), format: .jpeg).bytes
        #expect(Array(clean[2..<20]) == [0xFF, 0xE0, 0, 16] + Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0])
        func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] { [0xFF, marker] + Self.bigEndian16(payload.count + 2) + payload }
        var dirty: [UInt8] = [0xFF, 0xD8]
        dirty += segment(0xE0, Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 2, 1] + Array("SoomSecret".utf8.prefix(6)))
        dirty += segment(0xE0, Array("JFXX\0".utf8) + [0x13] + Array("SoomSecret".utf8))
        dirty += segment(0xE2, Array("MPF\0MM\0*".utf8) + Array("SoomSecret".utf8))
        dirty += segment(0xEF, Array("SoomSecret".utf8))
        dirty += segment(0xFE, Array("soom secret comment".utf8))
        dirty += segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>".utf8))
        dirty += clean[20...] + Array("SOOMTRAILER".utf8)
        #expect(try PhotoScrubber.scrub(dirty, format: .jpeg).bytes == clean)
    }

    @Test("PNG: private ancillary chunks, sPLT and bytes after IEND go; an unknown critical chunk is refused")
    func pngChunks() throws {
        let clean = try PhotoScrubber.scrub(try Fixture(name: "png-metadata.png", format: .png).bytes(), format: .png).bytes
        func chunk(_ type: String, _ data: String) -> [UInt8] {
            Self.bigEndian32(data.utf8.count) + Array(type.utf8) + Array(data.utf8) + [0, 0, 0, 0]
        }
        let dirty = clean[0..<33] + chunk("caBX", "SoomSecret") + chunk("iDOT", "SoomSecret") + chunk("sPLT", "SoomSecret\0\u{8}") + clean[33...]
        #expect(try PhotoScrubber.scrub(Array(dirty + chunk("tEXt", "SoomSecret")), format: .png).bytes == clean)
        #expect(Self.isMalformed(Array(clean[0..<33] + chunk("SOOM", "") + clean[33...]), .png))
    }

    @Test("orientation 1 is not kept: no EXIF at all")
    func uprightHasNoEXIF() throws {
        for fixture in Self.fixtures where fixture.name.hasSuffix("baseline.jpg") || fixture.format != .jpeg {
            var bytes = try PhotoScrubber.scrub(try fixture.bytes(), format: fixture.format).bytes
            let value = try #require(bytes.firstRange(of: Self.minimalTIFF)).lowerBound + 18
            bytes[value] = 1
            let upright = try PhotoScrubber.scrub(bytes, format: fixture.format)
            #expect(upright.orientation == nil, "\(fixture.name)")
            for name in ["Exif", "eXIf", "EXIF"] { #expect(!upright.bytes.contains(text: name), "\(fixture.name)") }
            if fixture.format == .webp { #expect(upright.bytes[20] & 0x08 == 0, "EXIF flag cleared") }
        }
    }

    @Test("WebP: simple VP8 and VP8L files (no VP8X) keep their single chunk and their size")
    func simpleWebP() throws {
        for name in ["webp-lossy.webp", "webp-lossless.webp"] {
            let chunk = try #require(
                WebPWalk(try Fixture(name: name, format: .webp).bytes())?.chunks.first { $0.fourCC.hasPrefix("VP8") && $0.fourCC != "VP8X" })
            let body =
                Array("WEBP".utf8) + Array(chunk.fourCC.utf8) + Self.littleEndian(chunk.data.count) + chunk.data
                + (chunk.data.count % 2 == 1 ? [0] : [])
            let simple = Array("RIFF".utf8) + Self.littleEndian(body.count) + body
            let scrubbed = try PhotoScrubber.scrub(simple + [0, 0, 0], format: .webp)
            #expect(scrubbed.bytes == simple && scrubbed.width == 64 && scrubbed.height == 48 && scrubbed.orientation == nil, "\(name)")
        }
    }
}

// MARK: - Independent walkers and helpers

extension PhotoScrubberTests {
    /// JPEG segments from SOI to EOI; an SOS segment's `whole` includes its entropy-coded data.
    struct JPEGWalk {
        struct Segment {
            let marker: UInt8
            let offset: Int
            let payload: [UInt8]
            let whole: [UInt8]
        }
        var segments: [Segment] = []
        var end = 0

        init?(_ b: [UInt8]) {
            guard b.starts(with: [0xFF, 0xD8]) else { return nil }
            var i = 2
            while i + 1 < b.count {
                guard b[i] == 0xFF else { return nil }
                let marker = b[i + 1]
                if marker == 0xFF {
                    i += 1
                    continue
                }
                if marker == 0xD9 {
                    self.end = i + 2
                    return
                }
                guard i + 3 < b.count else { return nil }
                var next = i + 2 + (Int(b[i + 2]) << 8 | Int(b[i + 3]))
                guard next <= b.count else { return nil }
                let payload = Array(b[i + 4..<next])
                if marker == 0xDA {
                    while next + 1 < b.count, !(b[next] == 0xFF && b[next + 1] != 0 && !(0xD0...0xD7).contains(b[next + 1])) { next += 1 }
                }
                self.segments.append(Segment(marker: marker, offset: i, payload: payload, whole: Array(b[i..<next])))
                i = next
            }
            return nil
        }
    }

    /// PNG chunks from IHDR to IEND.
    struct PNGWalk {
        var chunks: [(type: String, data: [UInt8])] = []
        var end = 8

        init?(_ b: [UInt8]) {
            while self.end + 12 <= b.count {
                let length = b[self.end..<self.end + 4].reduce(0) { $0 << 8 | Int($1) }
                guard self.end + 12 + length <= b.count else { return nil }
                let type = String(decoding: b[self.end + 4..<self.end + 8], as: UTF8.self)
                self.chunks.append((type, Array(b[self.end + 8..<self.end + 8 + length])))
                self.end += 12 + length
                if type == "IEND" { return }
            }
            return nil
        }
    }

    /// Top-level WebP chunks inside the RIFF size.
    struct WebPWalk {
        var chunks: [(fourCC: String, data: [UInt8])] = []
        let end: Int

        init?(_ b: [UInt8]) {
            guard b.count >= 12 else { return nil }
            self.end = 8 + b[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }
            var i = 12
            while i + 8 <= min(self.end, b.count) {
                let size = b[i + 4..<i + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
                guard i + 8 + size <= b.count else { return nil }
                self.chunks.append((String(decoding: b[i..<i + 4], as: UTF8.self), Array(b[i + 8..<i + 8 + size])))
                i += 8 + size + size % 2
            }
        }
    }

    /// What the decoder reads to make pixels: JPEG tables, frame headers and scans; PNG IDAT; WebP bitstreams.
    static func imageData(_ bytes: [UInt8], _ format: ImageFormat) -> [UInt8]? {
        switch format {
        case .jpeg:
            let image: Set<UInt8> = Set(0xC0...0xCF).subtracting([0xC8]).union([0xDA, 0xDB, 0xDD])
            return JPEGWalk(bytes)?.segments.filter { image.contains($0.marker) }.flatMap(\.whole)
        case .png: return PNGWalk(bytes)?.chunks.filter { $0.type == "IDAT" }.flatMap(\.data)
        case .webp: return WebPWalk(bytes)?.chunks.filter { ["ANMF", "ALPH", "VP8 ", "VP8L"].contains($0.fourCC) }.flatMap(\.data)
        }
    }

    /// Where the file's structure ends (EOI, IEND, the RIFF size): shorter prefixes are truncated files.
    static func structuralEnd(_ bytes: [UInt8], _ format: ImageFormat) -> Int? {
        switch format {
        case .jpeg: JPEGWalk(bytes)?.end
        case .png: PNGWalk(bytes)?.end
        case .webp: WebPWalk(bytes)?.end
        }
    }

    /// The file with its header claiming another size (JPEG: first SOF; PNG: IHDR; WebP: VP8X canvas).
    static func patch(_ bytes: [UInt8], _ format: ImageFormat, width: Int, height: Int) -> [UInt8]? {
        var bytes = bytes
        switch format {
        case .jpeg:
            guard let sof = JPEGWalk(bytes)?.segments.first(where: { (0xC0...0xC2).contains($0.marker) })?.offset else { return nil }
            bytes.replaceSubrange(sof + 5..<sof + 9, with: Self.bigEndian16(height) + Self.bigEndian16(width))
        case .png:
            bytes.replaceSubrange(16..<24, with: Self.bigEndian32(width) + Self.bigEndian32(height))
        case .webp:
            guard width > 0, height > 0, bytes[12..<16] == ArraySlice("VP8X".utf8) else { return nil }
            bytes.replaceSubrange(24..<30, with: Self.littleEndian(width - 1).prefix(3) + Self.littleEndian(height - 1).prefix(3))
        }
        return bytes
    }

    static func isMalformed(_ bytes: [UInt8], _ format: ImageFormat) -> Bool {
        do {
            _ = try PhotoScrubber.scrub(bytes, format: format)
            return false
        } catch {
            if case .malformed = error { return true }
            return false
        }
    }

    static func bigEndian16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func bigEndian32(_ value: Int) -> [UInt8] { Self.bigEndian16(value >> 16) + Self.bigEndian16(value) }
    static func littleEndian(_ value: Int) -> [UInt8] { Self.bigEndian32(value).reversed() }
}

extension [UInt8] {
    fileprivate func contains(text: String) -> Bool { self.firstRange(of: Array(text.utf8)) != nil }
}
