/// zlib (RFC 1950) streams of DEFLATE blocks (RFC 1951), read for PNG: the image data, to find where its
/// stream ends and how much it holds, and the colour profile, to make it anonymous.
///
/// `checkImageData` does not keep what it inflates: a back-reference only has to point inside what came
/// before, so the cost follows the compressed size, not the (up to 320 MB) pixels it stands for, and the
/// image data's own checksum is not verified (that would mean producing every byte; a wrong one only
/// spoils the picture, which decoders then refuse or show damaged). `inflate` keeps the bytes, up to a
/// limit, and verifies the checksum. Both refuse any inconsistent stream, never trap, and end: every step
/// reads input or writes bounded output.
enum Inflate {
    /// Checks that `parts` (the IDAT chunks' data, in order) are one whole zlib stream that inflates to
    /// exactly `expected` bytes, with nothing after its checksum.
    static func checkImageData(_ parts: [ArraySlice<UInt8>], expected: Int) throws(PhotoProblem) {
        var stream: [UInt8] = []
        stream.reserveCapacity(parts.reduce(0) { $0 + $1.count })
        for part in parts { stream += part }
        let damaged = PhotoProblem.malformed("PNG: the image data is damaged")
        var output = Output(limit: expected, keep: false, damaged: .malformed("PNG: the image data holds more than the image"))
        let end = try Self.decode(stream, into: &output, damaged: damaged)
        guard end == stream.count else { throw .malformed("PNG: bytes after the end of the image data") }
        guard output.count == expected else { throw .malformed("PNG: the image data holds less than the image") }
    }

    /// The bytes of the zlib stream `data`, which must end exactly at its checksum and inflate to at most `limit` bytes.
    static func inflate(_ data: ArraySlice<UInt8>, limit: Int) throws(PhotoProblem) -> [UInt8] {
        let stream = Array(data)
        let damaged = PhotoProblem.malformed("the colour profile is damaged")
        var output = Output(limit: limit, keep: true, damaged: damaged)
        let end = try Self.decode(stream, into: &output, damaged: damaged)
        guard end == stream.count, stream.bigEndian(at: end - 4, width: 4) == Int(Self.adler32(output.bytes)) else { throw damaged }
        return output.bytes
    }

    /// `bytes` as a zlib stream of stored (uncompressed) blocks: simple to write, and exactly what was given.
    static func storedZlib(_ bytes: [UInt8]) -> [UInt8] {
        // CMF 0x78 (DEFLATE, 32 KiB window), FLG 0x01 (no dictionary; 0x7801 is a multiple of 31).
        var output: [UInt8] = [0x78, 0x01]
        output.reserveCapacity(bytes.count + bytes.count / 65_535 * 5 + 11)
        var offset = 0
        repeat {
            let length = min(65_535, bytes.count - offset)
            output.append(offset + length == bytes.count ? 1 : 0)
            output.appendLittleEndian(length, width: 2)
            output.appendLittleEndian(~length & 0xFFFF, width: 2)
            output += bytes[offset..<offset + length]
            offset += length
        } while offset < bytes.count
        output.appendBigEndian(Int(Self.adler32(bytes)), width: 4)
        return output
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        var start = 0
        // 5,552 bytes is the most that cannot overflow 32 bits before the modulo.
        while start < bytes.count {
            let end = min(start + 5_552, bytes.count)
            for byte in bytes[start..<end] {
                a += UInt32(byte)
                b += a
            }
            a %= 65_521
            b %= 65_521
            start = end
        }
        return b << 16 | a
    }

    // MARK: - Decoding

    /// What inflating produces: counted always, kept when asked, never more than `limit` bytes.
    private struct Output {
        let limit: Int
        let keep: Bool
        let damaged: PhotoProblem
        var count = 0
        var bytes: [UInt8] = []

        mutating func literal(_ byte: UInt8) throws(PhotoProblem) {
            guard self.count < self.limit else { throw self.damaged }
            self.count += 1
            if self.keep { self.bytes.append(byte) }
        }

        mutating func copy(_ slice: ArraySlice<UInt8>) throws(PhotoProblem) {
            guard slice.count <= self.limit - self.count else { throw self.damaged }
            self.count += slice.count
            if self.keep { self.bytes += slice }
        }

        /// `length` bytes from `distance` back; false when that reaches before the start.
        mutating func match(distance: Int, length: Int) throws(PhotoProblem) -> Bool {
            guard distance <= self.count else { return false }
            guard length <= self.limit - self.count else { throw self.damaged }
            self.count += length
            if self.keep {
                for _ in 0..<length { self.bytes.append(self.bytes[self.bytes.count - distance]) }
            }
            return true
        }
    }

    /// Bits of the input, least significant first; refuses to read past the end.
    private struct Bits {
        let bytes: [UInt8]
        var position: Int
        var buffer: UInt64 = 0
        var count = 0
        let damaged: PhotoProblem

        mutating func read(_ width: Int) throws(PhotoProblem) -> Int {
            while self.count < width {
                guard self.position < self.bytes.count else { throw self.damaged }
                self.buffer |= UInt64(self.bytes[self.position]) << UInt64(self.count)
                self.position += 1
                self.count += 8
            }
            let value = Int(self.buffer & (1 << UInt64(width) - 1))
            self.buffer >>= UInt64(width)
            self.count -= width
            return value
        }

        /// Drops the bits left of the current byte (fewer than 8 are ever held between reads).
        mutating func align() {
            self.buffer = 0
            self.count = 0
        }
    }

    /// A canonical Huffman code: how many codes each length has, and the symbols in code order.
    private struct Huffman {
        var counts = [Int](repeating: 0, count: 16)
        var symbols: [Int] = []

        /// Nil when the lengths over-subscribe the code; `complete` says whether every code is used.
        init?(lengths: ArraySlice<Int>, complete: inout Bool) {
            for length in lengths { self.counts[length] += 1 }
            var left = 1
            for length in 1..<16 {
                left = left << 1 - self.counts[length]
                if left < 0 { return nil }
            }
            complete = left == 0
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<15 { offsets[length + 1] = offsets[length] + self.counts[length] }
            self.symbols = [Int](repeating: 0, count: lengths.count)
            for (symbol, length) in zip(0..., lengths) where length != 0 {
                self.symbols[offsets[length]] = symbol
                offsets[length] += 1
            }
        }

        func decode(_ bits: inout Bits) throws(PhotoProblem) -> Int {
            var code = 0
            var first = 0
            var index = 0
            for length in 1..<16 {
                code |= try bits.read(1)
                let count = self.counts[length]
                if code - first < count { return self.symbols[index + code - first] }
                index += count
                first = (first + count) << 1
                code <<= 1
            }
            throw bits.damaged
        }
    }

    private static let lengthBase = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
    ]
    private static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBase = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
    ]
    private static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
    /// The order in which a dynamic block lists its code-length code's lengths.
    private static let lengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
    private static let fixed: (literals: Huffman, distances: Huffman) = {
        var complete = false
        let literals =
            Array(repeating: 8, count: 144) + Array(repeating: 9, count: 112) + Array(repeating: 7, count: 24) + Array(repeating: 8, count: 8)
        return (Huffman(lengths: literals[...], complete: &complete)!, Huffman(lengths: Array(repeating: 5, count: 30)[...], complete: &complete)!)
    }()

    /// Decodes the zlib stream at the start of `stream` into `output`; returns where its checksum ends.
    private static func decode(_ stream: [UInt8], into output: inout Output, damaged: PhotoProblem) throws(PhotoProblem) -> Int {
        // CMF: method 8 (DEFLATE), window at most 32 KiB; FLG: no preset dictionary; both a multiple of 31.
        guard stream.count >= 6, stream[0] & 0x0F == 8, stream[0] >> 4 <= 7, stream[1] & 0x20 == 0, (Int(stream[0]) << 8 | Int(stream[1])) % 31 == 0
        else { throw damaged }
        var bits = Bits(bytes: stream, position: 2, damaged: damaged)
        var last = false
        while !last {
            last = try bits.read(1) == 1
            switch try bits.read(2) {
            case 0:
                bits.align()
                guard let length = stream.littleEndian(at: bits.position, width: 2), let check = stream.littleEndian(at: bits.position + 2, width: 2),
                    length == ~check & 0xFFFF, stream.hasBytes(at: bits.position + 4, count: length)
                else { throw damaged }
                try output.copy(stream[bits.position + 4..<bits.position + 4 + length])
                bits.position += 4 + length
            case 1:
                try Self.codes(&bits, Self.fixed.literals, Self.fixed.distances, into: &output)
            case 2:
                let codes = try Self.dynamicCodes(&bits)
                try Self.codes(&bits, codes.literals, codes.distances, into: &output)
            default:
                throw damaged
            }
        }
        bits.align()
        guard stream.hasBytes(at: bits.position, count: 4) else { throw damaged }
        return bits.position + 4
    }

    /// A compressed block's symbols, up to its end-of-block code.
    private static func codes(_ bits: inout Bits, _ literals: Huffman, _ distances: Huffman, into output: inout Output) throws(PhotoProblem) {
        while true {
            let symbol = try literals.decode(&bits)
            if symbol < 256 {
                try output.literal(UInt8(symbol))
                continue
            }
            if symbol == 256 { return }
            let index = symbol - 257
            guard index < 29 else { throw bits.damaged }
            let length = Self.lengthBase[index] + (try bits.read(Self.lengthExtra[index]))
            let code = try distances.decode(&bits)
            guard code < 30 else { throw bits.damaged }
            let distance = Self.distanceBase[code] + (try bits.read(Self.distanceExtra[code]))
            guard try output.match(distance: distance, length: length) else { throw bits.damaged }
        }
    }

    /// A dynamic block's literal/length and distance codes, read from its header.
    private static func dynamicCodes(_ bits: inout Bits) throws(PhotoProblem) -> (literals: Huffman, distances: Huffman) {
        let literalCount = try bits.read(5) + 257
        let distanceCount = try bits.read(5) + 1
        let lengthCodeCount = try bits.read(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else { throw bits.damaged }
        var codeLengths = [Int](repeating: 0, count: 19)
        for index in 0..<lengthCodeCount { codeLengths[Self.lengthOrder[index]] = try bits.read(3) }
        var complete = false
        guard let lengthCode = Huffman(lengths: codeLengths[...], complete: &complete), complete else { throw bits.damaged }
        var lengths: [Int] = []
        lengths.reserveCapacity(literalCount + distanceCount)
        while lengths.count < literalCount + distanceCount {
            let symbol = try lengthCode.decode(&bits)
            let repeated: (value: Int, count: Int)
            switch symbol {
            case 0..<16: repeated = (symbol, 1)
            case 16:
                guard let previous = lengths.last else { throw bits.damaged }
                repeated = (previous, 3 + (try bits.read(2)))
            case 17: repeated = (0, 3 + (try bits.read(3)))
            default: repeated = (0, 11 + (try bits.read(7)))
            }
            guard lengths.count + repeated.count <= literalCount + distanceCount else { throw bits.damaged }
            lengths += repeatElement(repeated.value, count: repeated.count)
        }
        guard lengths[256] != 0 else { throw bits.damaged }
        // An incomplete code is allowed only when no length passes 1: a single code, or no distance at all
        // (RFC 1951; puff's and zlib's rule).
        let literalLengths = lengths[0..<literalCount]
        let distanceLengths = lengths[literalCount...]
        guard let literals = Huffman(lengths: literalLengths, complete: &complete), complete || literalLengths.allSatisfy({ $0 <= 1 }),
            let distances = Huffman(lengths: distanceLengths, complete: &complete), complete || distanceLengths.allSatisfy({ $0 <= 1 })
        else { throw bits.damaged }
        return (literals, distances)
    }
}
