import Foundation
import Testing

@testable import SoomDomain

/// Issue 43's damaged and abusive pictures: animation refused; structure checked (one still image, header
/// fields of known values, sizes that agree); nothing kept after an image's logical end; colour profiles
/// kept but anonymous; refusals that say what is wrong, never where.
@Suite("Photo validation: still pictures only, whole and consistent, nothing hidden after the end")
struct PhotoValidationTests {
    typealias Helpers = PhotoScrubberTests

    static func fixture(_ name: String) throws -> [UInt8] {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/Photos")
        return [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func problem(_ bytes: [UInt8], _ format: ImageFormat) -> PhotoProblem? {
        do {
            _ = try PhotoScrubber.scrub(bytes, format: format)
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Animation

    @Test("animated WebP (the VP8X flag, ANIM or ANMF chunks) and animated PNG (acTL) are refused as animated")
    func animation() throws {
        let animated = try Self.fixture("webp-animated.webp")
        #expect(Self.problem(animated, .webp) == .animated)
        // The issue's file: 4,000 frames of 8192 × 4882 claimed by a 200 KB upload; the header alone says it.
        var claimed = animated
        claimed.replaceSubrange(24..<30, with: Helpers.littleEndian(8191).prefix(3) + Helpers.littleEndian(4881).prefix(3))
        #expect(throws: PhotoProblem.animated) { try PhotoScrubber.dimensions(of: Array(claimed.prefix(30)), format: .webp) }
        // The flag cleared, the frames still there.
        var unflagged = animated
        unflagged[20] &= ~0x02
        #expect(Self.problem(unflagged, .webp) == .animated)
        // A still file with an ANIM chunk added.
        let still = try Self.fixture("webp-lossless.webp")
        #expect(Self.problem(Self.webp(Array(still[12...]) + Self.webpChunk("ANIM", [0, 0, 0, 0, 0, 0])), .webp) == .animated)

        let png = try Self.fixture("png-metadata.png")
        let actl = Self.pngChunk("acTL", Helpers.bigEndian32(2) + Helpers.bigEndian32(0))
        #expect(Self.problem(Array(png[0..<33] + actl + png[33...]), .png) == .animated)
    }

    // MARK: - WebP

    @Test("WebP: a VP8X without an image, a canvas not the bitstream's size, two bitstreams, misplaced alpha: damaged")
    func webpStructure() throws {
        // The issue's 30-byte file: RIFF header and a VP8X chunk, nothing else.
        let lonely = Self.webp(Self.webpChunk("VP8X", [0, 0, 0, 0] + Helpers.littleEndian(63).prefix(3) + Helpers.littleEndian(47).prefix(3)))
        #expect(lonely.count == 30)
        #expect(Self.isMalformed(lonely, .webp))

        let lossless = try Self.fixture("webp-lossless.webp")
        // A canvas of 8192 × 4882 over the 64 × 48 bitstream.
        let patched = try #require(Helpers.patch(lossless, .webp, width: 8192, height: 4882))
        #expect(try PhotoScrubber.dimensions(of: patched, format: .webp) == (8192, 4882))
        #expect(Self.isMalformed(patched, .webp))

        let chunks = try #require(Helpers.WebPWalk(lossless)?.chunks)
        let vp8x = Self.webpChunk("VP8X", chunks[0].data)
        let bitstream = Self.webpChunk("VP8L", chunks[1].data)
        #expect(throws: Never.self) { try PhotoScrubber.scrub(Self.webp(vp8x + bitstream), format: .webp) }
        #expect(Self.isMalformed(Self.webp(vp8x + bitstream + bitstream), .webp), "two bitstreams")
        #expect(Self.isMalformed(Self.webp(vp8x + vp8x + bitstream), .webp), "two VP8X")
        #expect(Self.isMalformed(Self.webp(Self.webpChunk("VP8X", chunks[0].data + [0, 0]) + bitstream), .webp), "VP8X of 12 bytes")
        let alpha = Self.webpChunk("ALPH", [0] + Array(repeating: 0x80, count: 64 * 48))
        #expect(Self.isMalformed(Self.webp(vp8x + alpha + bitstream), .webp), "alpha with a lossless bitstream")

        let lossy = try #require(Helpers.WebPWalk(try Self.fixture("webp-lossy.webp"))?.chunks)
        let vp8 = Self.webpChunk("VP8 ", lossy[2].data)
        let lossyHeader = Self.webpChunk("VP8X", lossy[0].data)
        #expect(Self.isMalformed(Self.webp(lossyHeader + vp8 + alpha), .webp), "alpha after the bitstream")
        var hidden = lossy[2].data
        hidden[0] &= ~0x10
        #expect(Self.isMalformed(Self.webp(lossyHeader + Self.webpChunk("VP8 ", hidden)), .webp), "a frame not shown")
    }

    @Test("WebP: bytes past raw alpha, reserved VP8X bits and pad bytes are not kept; the bitstream is")
    func webpNormalised() throws {
        let lossy = try #require(Helpers.WebPWalk(try Self.fixture("webp-lossy.webp"))?.chunks)
        var header = lossy[0].data
        header[0] |= 0xC1  // reserved flag bits
        header[1] = 0x55  // reserved bytes
        let raw = [0] + Array(repeating: UInt8(0x80), count: 64 * 48)
        let vp8 = lossy[2].data
        let input = Self.webp(Self.webpChunk("VP8X", header) + Self.webpChunk("ALPH", raw + Array("SoomSecret".utf8)) + Self.webpChunk("VP8 ", vp8))
        let output = try PhotoScrubber.scrub(input, format: .webp)
        let chunks = try #require(Helpers.WebPWalk(output.bytes)?.chunks)
        #expect(chunks.map(\.fourCC) == ["VP8X", "ALPH", "VP8 "])
        #expect(chunks[0].data == [0x10, 0, 0, 0] + lossy[0].data[4...])
        #expect(chunks[1].data == raw && chunks[2].data == vp8)
        #expect(!output.bytes.contains(text: "SoomSecret"))
        #expect(output.width == 64 && output.height == 48)
        #expect(try PhotoScrubber.scrub(output.bytes, format: .webp) == output)
    }

    // MARK: - JPEG

    @Test("JPEG: a frame of 0, 2 or 255 components, a frame header of the wrong length, a second frame: damaged")
    func jpegFrames() throws {
        let baseline = try Self.fixture("jpeg-baseline.jpg")
        let sof = try #require(Helpers.JPEGWalk(baseline)?.segments.first { $0.marker == 0xC0 }).offset
        #expect(baseline[sof + 9] == 3)
        for count: UInt8 in [0, 2, 5, 255] {
            var patched = baseline
            patched[sof + 9] = count
            #expect(Self.isMalformed(patched, .jpeg), "\(count) components")
        }
        var precision = baseline
        precision[sof + 4] = 9
        #expect(Self.isMalformed(precision, .jpeg))
        var sampling = baseline
        sampling[sof + 11] = 0x50
        #expect(Self.isMalformed(sampling, .jpeg))
        let frame = try #require(Helpers.JPEGWalk(baseline)?.segments.first { $0.marker == 0xC0 }).whole
        #expect(Self.isMalformed(Array(baseline[0..<sof] + frame + baseline[sof...]), .jpeg), "two frames")
        // A second picture inside the stream (another SOI) is refused; one after EOI is dropped.
        #expect(Self.isMalformed(Array(baseline[0..<sof] + [0xFF, 0xD8] + baseline[sof...]), .jpeg))
        let clean = try PhotoScrubber.scrub(baseline, format: .jpeg).bytes
        #expect(try PhotoScrubber.scrub(clean + baseline, format: .jpeg).bytes == clean)
    }

    @Test("JPEG: APP14 is cut to the 12 bytes a decoder reads; ICC chunks are joined, checked and anonymised")
    func jpegAdobeAndICC() throws {
        let clean = try PhotoScrubber.scrub(try Self.fixture("jpeg-baseline.jpg"), format: .jpeg).bytes
        let adobe = Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 1]
        func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] { [0xFF, marker] + Helpers.bigEndian16(payload.count + 2) + payload }
        let dirty = clean[0..<20] + segment(0xEE, adobe + Array("SoomSecret".utf8)) + segment(0xEE, adobe) + clean[20...]
        #expect(try PhotoScrubber.scrub(Array(dirty), format: .jpeg).bytes == Array(clean[0..<20] + segment(0xEE, adobe) + clean[20...]))
        #expect(try PhotoScrubber.scrub(Array(clean[0..<20] + segment(0xEE, Array(adobe.prefix(9))) + clean[20...]), format: .jpeg).bytes == clean)

        let profile = Self.profile()
        let header = Array("ICC_PROFILE\0".utf8)
        let split = segment(0xE2, header + [2, 2] + profile[300...]) + segment(0xE2, header + [1, 2] + profile[..<300])
        let output = try PhotoScrubber.scrub(Array(clean[0..<20] + split + clean[20...]), format: .jpeg).bytes
        let anonymous = try ICCProfile.anonymised(profile)
        #expect(output == Array(clean[0..<20] + segment(0xE2, header + [1, 1] + anonymous) + clean[20...]))
        for broken in [
            segment(0xE2, header + [1, 2] + profile[..<300]), segment(0xE2, header + [1, 1] + profile[..<300]),
            segment(0xE2, header + [0, 0] + profile), split + segment(0xE2, header + [1, 2] + profile[..<300]),
        ] {
            #expect(Self.isMalformed(Array(clean[0..<20] + broken + clean[20...]), .jpeg))
        }
    }

    // MARK: - PNG

    @Test("PNG: IHDR bit depth and colour type pairs as the specification allows, and known methods; nothing else")
    func pngHeader() throws {
        let png = try Self.fixture("png-metadata.png")
        let allowed: [Int: Set<Int>] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
        for type in [0, 1, 2, 3, 4, 5, 6, 7, 77, 255] {
            for depth in [0, 1, 2, 3, 4, 8, 12, 16, 32, 99] {
                var patched = png
                patched[24] = UInt8(depth)
                patched[25] = UInt8(type)
                let valid = allowed[type]?.contains(depth) == true
                #expect(((try? PhotoScrubber.dimensions(of: patched, format: .png)) != nil) == valid, "depth \(depth), type \(type)")
            }
        }
        for (offset, value) in [(26, 1), (27, 1), (28, 2)] {
            var patched = png
            patched[offset] = UInt8(value)
            #expect(Self.isMalformed(patched, .png))
        }
    }

    @Test("PNG: the image data must be one whole zlib stream holding exactly the image's rows, nothing after it")
    func pngImageData() throws {
        let png = try PhotoScrubber.scrub(try Self.fixture("png-metadata.png"), format: .png).bytes
        let chunks = try #require(Helpers.PNGWalk(png)?.chunks)
        let data = try #require(chunks.first { $0.type == "IDAT" }).data
        func with(_ idats: [[UInt8]], between: [UInt8] = []) -> [UInt8] {
            var bytes = Array(png[0..<8])
            for chunk in chunks where chunk.type != "IDAT" {
                if chunk.type == "IEND" {
                    for (number, idat) in idats.enumerated() { bytes += (number == 1 ? between : []) + Self.pngChunk("IDAT", idat) }
                }
                bytes += Self.pngChunk(chunk.type, chunk.data)
            }
            return bytes
        }
        #expect(try PhotoScrubber.scrub(with([data]), format: .png).bytes == png)
        #expect(try PhotoScrubber.scrub(with([Array(data[..<100]), Array(data[100...])]), format: .png).width == 64, "split IDAT")
        #expect(Self.isMalformed(with([data + Array("SoomSecret".utf8)]), .png), "bytes after the zlib stream")
        #expect(Self.isMalformed(with([data + [0]]), .png), "one byte after the zlib stream")
        #expect(Self.isMalformed(with([Array(data.dropLast(4))]), .png), "no checksum")
        #expect(Self.isMalformed(with([Array(data.prefix(data.count / 2))]), .png), "cut in half")
        #expect(Self.isMalformed(with([Array(data[..<100]), Array(data[100...])], between: Self.pngChunk("gAMA", [0, 1, 0x86, 0xA0])), .png))
        // A stream of stored blocks holding one row too few or too many.
        let rows = 48 * (1 + 64)
        #expect(throws: Never.self) { try PhotoScrubber.scrub(with([Inflate.storedZlib(Array(repeating: 0, count: rows))]), format: .png) }
        #expect(Self.isMalformed(with([Inflate.storedZlib(Array(repeating: 0, count: rows - 65))]), .png))
        #expect(Self.isMalformed(with([Inflate.storedZlib(Array(repeating: 0, count: rows + 65))]), .png))
        // A wrong CRC on a kept chunk.
        var crc = png
        crc[png.count - 13] ^= 1
        #expect(Self.isMalformed(crc, .png))
    }

    @Test("PNG: a palette missing, misplaced or of the wrong size is damaged; the profile's name is replaced")
    func pngPaletteAndProfile() throws {
        let png = try Self.fixture("png-metadata.png")
        let chunks = try #require(Helpers.PNGWalk(png)?.chunks)
        func rebuilt(_ edit: (inout [(type: String, data: [UInt8])]) -> Void) -> [UInt8] {
            var copy = chunks
            edit(&copy)
            return Array(png[0..<8]) + copy.flatMap { Self.pngChunk($0.type, $0.data) }
        }
        #expect(Self.isMalformed(rebuilt { $0.removeAll { $0.type == "PLTE" } }, .png), "no palette")
        #expect(Self.isMalformed(rebuilt { $0[3].data += [0] }, .png), "palette not a multiple of 3")
        #expect(Self.isMalformed(rebuilt { $0.insert($0[3], at: 3) }, .png), "two palettes")

        let iccp = try #require(chunks.first { $0.type == "iCCP" }).data
        #expect(!iccp.starts(with: Array("ICC profile\0".utf8)))
        let scrubbed = try #require(Helpers.PNGWalk(try PhotoScrubber.scrub(png, format: .png).bytes)?.chunks.first { $0.type == "iCCP" }).data
        #expect(scrubbed.starts(with: Array("ICC profile\0\0".utf8)))
        let original = try Inflate.inflate(iccp[(iccp.firstIndex(of: 0)! + 2)...], limit: 1 << 20)
        #expect(try Inflate.inflate(scrubbed[13...], limit: 1 << 20) == (try ICCProfile.anonymised(original)))
    }

    // MARK: - ICC profiles

    @Test("ICC: identifying header fields, descriptions, copyright, device texts and private tags emptied; colour tags kept")
    func iccAnonymised() throws {
        let profile = Self.profile()
        let output = try ICCProfile.anonymised(profile)
        #expect(output.count == profile.count)
        for range in [4..<8, 24..<36, 40..<44, 48..<56, 80..<128] { #expect(output[range].allSatisfy { $0 == 0 }, "\(range)") }
        #expect(output[8..<24] == profile[8..<24] && output[36..<40] == profile[36..<40] && output[64..<80] == profile[64..<80])
        #expect(output[44..<48] == [0, 0, 0, 3] && output[56..<64] == [0, 0, 0, 0, 0, 0, 0, 0x0F], "flags and attributes: defined bits only")
        // Header 128, table 4 + 5 × 12: rXYZ at 192 (20), desc at 212 (100), cprt at 312 (24), a gap of
        // 16, dmnd at 352 (46 + 2 padding), mmod at 400 (20).
        #expect(output[128..<212] == profile[128..<212], "tag table and rXYZ")
        func zeros(_ count: Int) -> [UInt8] { Array(repeating: 0, count: count) }
        #expect(Array(output[212..<312]) == Array("desc".utf8) + [0, 0, 0, 0, 0, 0, 0, 1] + zeros(88), "empty desc")
        #expect(Array(output[312..<352]) == Array("text".utf8) + zeros(36), "empty cprt, zeroed gap")
        let emptyMLUC = Array("mluc".utf8) + [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 12] + Array("enUS".utf8) + [0, 0, 0, 0, 0, 0, 0, 28]
        #expect(output.count == 420 && Array(output[352..<400]) == emptyMLUC + zeros(20), "empty dmnd")
        #expect(Array(output[400..<420]) == Array("mmod".utf8) + zeros(16), "private tag zeroed")
        #expect(!output.contains(text: "Soom") && output.firstRange(of: [0, 0x53, 0, 0x6F, 0, 0x6F, 0, 0x6D]) == nil)
        #expect(try ICCProfile.anonymised(output) == output)

        var short = profile
        short.replaceSubrange(0..<4, with: Helpers.bigEndian32(profile.count + 1))
        var unsigned = profile
        unsigned[36] = 0x41
        var outside = profile
        outside.replaceSubrange(136..<140, with: Helpers.bigEndian32(profile.count - 4))
        for broken in [short, unsigned, outside, Array(profile.prefix(131))] {
            #expect(throws: PhotoProblem.self) { try ICCProfile.anonymised(broken) }
        }
        // Bytes after the stated size are dropped.
        #expect(try ICCProfile.anonymised(profile + Array("SoomSecret".utf8)) == output)
    }

    @Test("ICC: a real profile (Adobe RGB from ghostscript) keeps every colour tag byte for byte")
    func iccRealProfile() throws {
        let jpeg = try Self.fixture("jpeg-icc.jpg")
        let app2 = try #require(Helpers.JPEGWalk(jpeg)?.segments.first { $0.marker == 0xE2 }).payload
        let profile = Array(app2[14...])
        let output = try ICCProfile.anonymised(profile)
        let count = profile.count >= 132 ? Int(profile[128]) << 24 | Int(profile[129]) << 16 | Int(profile[130]) << 8 | Int(profile[131]) : 0
        #expect(count > 3)
        for index in 0..<count {
            let entry = 132 + 12 * index
            let signature = String(decoding: profile[entry..<entry + 4], as: UTF8.self)
            let offset = profile[entry + 4..<entry + 8].reduce(0) { $0 << 8 | Int($1) }
            let length = profile[entry + 8..<entry + 12].reduce(0) { $0 << 8 | Int($1) }
            if ["rXYZ", "gXYZ", "bXYZ", "rTRC", "gTRC", "bTRC", "wtpt", "bkpt", "chad"].contains(signature) {
                #expect(output[offset..<offset + length] == profile[offset..<offset + length], "\(signature)")
            }
            if ["desc", "cprt"].contains(signature) {
                #expect(output[offset..<offset + length] != profile[offset..<offset + length], "\(signature)")
            }
        }
        let scrubbed = try PhotoScrubber.scrub(jpeg, format: .jpeg).bytes
        #expect(try #require(Helpers.JPEGWalk(scrubbed)?.segments.first { $0.marker == 0xE2 }).payload == Array(app2[0..<14]) + output)
    }

    // MARK: - Messages and robustness

    @Test("refusals say what is wrong, never where: no byte offsets in any message")
    func noOffsets() throws {
        var messages: Set<String> = []
        for (name, format) in [("jpeg-baseline.jpg", ImageFormat.jpeg), ("png-metadata.png", .png), ("webp-lossy.webp", .webp)] {
            let input = try Self.fixture(name)
            var random = SplitMix64(seed: 43)
            var cases = stride(from: 0, to: input.count, by: 13).map { Array(input.prefix($0)) }
            for _ in 0..<400 {
                var bytes = input
                for _ in 0...Int.random(in: 0...2, using: &random) {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
                cases.append(bytes)
            }
            for bytes in cases {
                if case .malformed(let detail) = Self.problem(bytes, format) { messages.insert(detail) }
            }
        }
        #expect(messages.count > 10)
        for message in messages {
            #expect(message.range(of: #"\b(at|offset|byte)\s*\d"#, options: .regularExpression) == nil, "\(message)")
        }
    }

    @Test("zlib: stored streams round-trip; damaged, over-long and trailing streams are refused")
    func inflate() throws {
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let stored = Inflate.storedZlib(bytes)
        #expect(try Inflate.inflate(stored[...], limit: bytes.count) == bytes)
        #expect(throws: PhotoProblem.self) { try Inflate.inflate(stored[...], limit: bytes.count - 1) }
        #expect(throws: PhotoProblem.self) { try Inflate.inflate((stored + [0])[...], limit: bytes.count) }
        var checksum = stored
        checksum[checksum.count - 1] ^= 1
        #expect(throws: PhotoProblem.self) { try Inflate.inflate(checksum[...], limit: bytes.count) }
        var random = SplitMix64(seed: 1950)
        let png = try Self.fixture("png-metadata.png")
        let idat = try #require(Helpers.PNGWalk(png)?.chunks.first { $0.type == "IDAT" }).data
        for _ in 0..<500 {
            var damaged = idat
            damaged[Int.random(in: 0..<damaged.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            _ = try? Inflate.checkImageData([damaged[...]], expected: 48 * 65)
            _ = try? Inflate.inflate(damaged[...], limit: 1 << 16)
        }
    }

    // MARK: - Builders

    /// A WebP file around `chunks`.
    static func webp(_ chunks: [UInt8]) -> [UInt8] {
        Array("RIFF".utf8) + Helpers.littleEndian(chunks.count + 4) + Array("WEBP".utf8) + chunks
    }

    static func webpChunk(_ fourCC: String, _ data: [UInt8]) -> [UInt8] {
        Array(fourCC.utf8) + Helpers.littleEndian(data.count) + data + (data.count % 2 == 1 ? [0] : [])
    }

    /// A PNG chunk with its CRC.
    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return Helpers.bigEndian32(data.count) + body + Helpers.bigEndian32(Int(CRC32.checksum(body)))
    }

    /// A small ICC v4 display profile: a filled-in header, then tags rXYZ (a colour tag), desc (v2 text
    /// description), cprt (text), dmnd (mluc), mmod (private) and a gap with text between the tags.
    static func profile() -> [UInt8] {
        var header = Helpers.bigEndian32(0) + Array("appl".utf8) + [4, 0x40, 0, 0] + Array("mntrRGB XYZ ".utf8)
        header += [0x07, 0xE8, 0, 5, 0, 1, 0, 12, 0, 34, 0, 56] + Array("acsp".utf8) + Array("APPL".utf8) + [0xAB, 0xCD, 0, 3]
        header += Array("SoomPhoneX1!".utf8).prefix(8) + [0xFF, 0xFF, 0, 0, 0, 0, 0, 0x0F] + [0, 0, 0, 1]
        header += [0, 0, 0xF6, 0xD6, 0, 1, 0, 0, 0, 0, 0xD3, 0x2D] + Array("SoomCorp".utf8).prefix(4) + Array(repeating: 0x5A, count: 44)
        precondition(header.count == 128)
        let tags: [(String, [UInt8])] = [
            ("rXYZ", Array("XYZ ".utf8) + [0, 0, 0, 0] + Array(repeating: 0x11, count: 12)),
            ("desc", Array("desc".utf8) + [0, 0, 0, 0] + Helpers.bigEndian32(11) + Array("SoomSecret\0".utf8) + Array(repeating: 0, count: 77)),
            ("cprt", Array("text".utf8) + [0, 0, 0, 0] + Array("SoomCorp 2024\0".utf8) + [0, 0]),
            (
                "dmnd",
                Array("mluc".utf8) + [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 12] + Array("enUS".utf8) + [0, 0, 0, 18, 0, 0, 0, 28]
                    + Array("SoomPhone".utf8.flatMap { [0, $0] })
            ),
            ("mmod", Array("mmod".utf8) + [0, 0, 0, 0] + Array("SoomPrivate!".utf8)),
        ]
        let tableEnd = 128 + 4 + 12 * tags.count
        var table = Helpers.bigEndian32(tags.count)
        var data: [UInt8] = []
        for (signature, body) in tags {
            table += Array(signature.utf8) + Helpers.bigEndian32(tableEnd + data.count) + Helpers.bigEndian32(body.count)
            data += body
            data += Array(repeating: 0, count: (4 - body.count % 4) % 4)
            if signature == "cprt" { data += Array("SoomSecretGap!!!".utf8) }
        }
        var profile = header + table + data
        profile.replaceSubrange(0..<4, with: Helpers.bigEndian32(profile.count))
        return profile
    }

    static func isMalformed(_ bytes: [UInt8], _ format: ImageFormat) -> Bool {
        if case .malformed = Self.problem(bytes, format) { return true }
        return false
    }
}

extension [UInt8] {
    fileprivate func contains(text: String) -> Bool { self.firstRange(of: Array(text.utf8)) != nil }
}
