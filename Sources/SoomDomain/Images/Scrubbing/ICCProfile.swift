/// Colour profiles (ICC v2 and v4), checked and made anonymous without changing a colour.
///
/// A profile says how to show a picture's colours, so it is kept. But it can name its maker: the
/// descriptions and copyright (`desc`, `cprt`), the device maker's and model's descriptions (`dmnd`,
/// `dmdd`), the calibration date (`calt`), private tags (Apple's `mmod` holds a display's vendor and
/// product), and the header's CMM, platform, device manufacturer and model, creator and date. A
/// screenshot carries the screen's own profile, sometimes one calibrated for that very screen.
///
/// The anonymous copy has the same size and layout:
/// - the header's identifying fields, its profile ID (an MD5 of the rest, which changes) and the
///   undefined flag and attribute bits are zeroed;
/// - each tag that takes no part in colour conversion is emptied in place: a valid empty text for the
///   text types (`desc`, `mluc`, `text`), zeros after the type otherwise;
/// - every byte that is neither the header, the tag table nor a tag is zeroed.
/// The colour tags (curves, matrices, lookup tables, white and black points, chromatic adaptation, …)
/// are kept byte for byte. A profile whose size field, signature or tag table does not hold together is
/// refused (`.malformed`); bytes after its stated size are dropped.
enum ICCProfile {
    static let headerLength = 128

    /// Tags that colour conversion reads, kept as they are.
    private static let colourTags: Set<UInt32> = Set(
        [
            "A2B0", "A2B1", "A2B2", "B2A0", "B2A1", "B2A2", "D2B0", "D2B1", "D2B2", "D2B3", "B2D0", "B2D1", "B2D2", "B2D3",
            "rXYZ", "gXYZ", "bXYZ", "rTRC", "gTRC", "bTRC", "kTRC", "wtpt", "bkpt", "chad", "chrm", "clro", "clrt", "clot",
            "lumi", "gamt", "pre0", "pre1", "pre2", "rig0", "rig2", "cicp", "ciis", "meas", "view", "resp",
        ].map(Self.signature))
    /// Header fields that say who or what made the profile, and when: preferred CMM, date, platform,
    /// device manufacturer and model, creator, profile ID, reserved.
    private static let identifyingFields: [Range<Int>] = [4..<8, 24..<36, 40..<44, 48..<56, 80..<128]
    private static let desc = Self.signature("desc")
    private static let mluc = Self.signature("mluc")

    /// The profile checked and made anonymous (see the type's description).
    static func anonymised(_ profile: [UInt8]) throws(PhotoProblem) -> [UInt8] {
        guard profile.count >= Self.headerLength + 4, let size = profile.bigEndian(at: 0, width: 4), size >= Self.headerLength + 4,
            size <= profile.count, profile.matches(Array("acsp".utf8), at: 36), let count = profile.bigEndian(at: Self.headerLength, width: 4),
            count <= (size - Self.headerLength - 4) / 12
        else { throw .malformed("the colour profile is damaged") }
        var output = Array(profile[0..<size])
        let tableEnd = Self.headerLength + 4 + 12 * count
        var tags: [(signature: UInt32, range: Range<Int>)] = []
        for index in 0..<count {
            let entry = Self.headerLength + 4 + 12 * index
            guard let signature = output.bigEndian(at: entry, width: 4), let offset = output.bigEndian(at: entry + 4, width: 4),
                let length = output.bigEndian(at: entry + 8, width: 4), offset >= tableEnd, length >= 8, length <= size - offset
            else { throw .malformed("the colour profile's tag table is damaged") }
            tags.append((UInt32(signature), offset..<offset + length))
        }

        for field in Self.identifyingFields { output.replaceSubrange(field, with: repeatElement(0, count: field.count)) }
        // Flags: only "embedded" and "used independently" are defined; attributes: only the four media bits.
        output.replaceSubrange(44..<47, with: [0, 0, 0])
        output[47] &= 0x03
        output.replaceSubrange(56..<63, with: repeatElement(0, count: 7))
        output[63] &= 0x0F

        let colour = Set(tags.filter { Self.colourTags.contains($0.signature) }.map { $0.range.lowerBound })
        for tag in tags where !Self.colourTags.contains(tag.signature) && !colour.contains(tag.range.lowerBound) {
            Self.empty(tag.range, in: &output)
        }
        // Zero what lies between the tags (and after them): no tag reads it.
        var kept = tags.map(\.range).sorted { $0.lowerBound < $1.lowerBound }
        kept.append(size..<size)
        var covered = tableEnd
        for range in kept {
            if range.lowerBound > covered {
                output.replaceSubrange(covered..<range.lowerBound, with: repeatElement(0, count: range.lowerBound - covered))
            }
            covered = max(covered, range.upperBound)
        }
        return output
    }

    /// Empties a tag in place, keeping its type: an empty text for the text types, zeros otherwise.
    private static func empty(_ range: Range<Int>, in output: inout [UInt8]) {
        let type = output.bigEndian(at: range.lowerBound, width: 4).map(UInt32.init)
        output.replaceSubrange(range.lowerBound + 4..<range.upperBound, with: repeatElement(0, count: range.count - 4))
        let start = range.lowerBound
        if type == Self.desc, range.count >= 13 {
            // textDescriptionType: an ASCII count of 1 (the terminating NUL), no Unicode, no ScriptCode.
            output.setBigEndian(1, width: 4, at: start + 8)
        } else if type == Self.mluc, range.count >= 28 {
            // multiLocalizedUnicodeType: one record (en-US) of length 0, whose text would start at 28.
            output.setBigEndian(1, width: 4, at: start + 8)
            output.setBigEndian(12, width: 4, at: start + 12)
            output.replaceSubrange(start + 16..<start + 20, with: Array("enUS".utf8))
            output.setBigEndian(28, width: 4, at: start + 24)
        }
    }

    /// A four-letter signature as a number, big-endian.
    private static func signature(_ ascii: String) -> UInt32 {
        ascii.utf8.reduce(0) { $0 << 8 | UInt32($1) }
    }
}
