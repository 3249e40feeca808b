import CUnicodeSecurity

/// Unicode TR 39 for the names people choose (nicknames, tags), from the system's ICU: what makes
/// two spellings "the same" to a reader, so that a look-alike cannot pose as a taken or reserved
/// name, and an invisible character cannot split one tag into several.
public enum UnicodeSecurity {
    /// NFKC_Casefold: compatibility forms folded (full-width `Ａ` is `a`), case folded, and every
    /// default-ignorable code point removed (variation selectors, joiners, the combining grapheme
    /// joiner, Hangul fillers such as U+3164).
    public static func folded(_ text: String) -> String {
        Self.transform(text, skeleton: false)
    }

    /// The confusable key: TR 39's skeleton of `folded(text)`, folded and skeletonised once more
    /// (a skeleton may be upper case: `0` becomes `O`, which must then meet `o`). Two names with
    /// the same key look alike (`Аlice` in Cyrillic and `alice`, `rn` and `m`, `0perator` and
    /// `operator`), so only one may exist.
    public static func confusableKey(_ text: String) -> String {
        Self.transform(Self.transform(text, skeleton: true), skeleton: true)
    }

    /// Whether `text` passes TR 39's moderately restrictive level: a single script, or Latin with
    /// one other script that is not Cyrillic or Greek (Hangul, Han, Kana…). Digits and
    /// punctuation belong to every script.
    public static func isSingleScript(_ text: String) -> Bool {
        if text.isEmpty { return true }
        let units = Array(text.utf16)
        return units.withUnsafeBufferPointer { buffer in
            soom_unicode_single_script(buffer.baseAddress, Int32(buffer.count)) == 1
        }
    }

    /// Whether ICU and its data are there and answer as expected; the server checks this at
    /// start-up rather than compare names by a weaker rule later.
    public static var isAvailable: Bool {
        Self.run("Ａdmin\u{FE0F}", skeleton: false) == "admin" && Self.run("\u{0430}dmin", skeleton: true) == Self.run("admin", skeleton: true)
            && !Self.isSingleScript("\u{0430}dmin")
    }

    private static func transform(_ text: String, skeleton: Bool) -> String {
        // ICU fails only without its data, which `isAvailable` rules out at start-up; then case
        // folding alone is still better than nothing.
        Self.run(text, skeleton: skeleton) ?? text.lowercased()
    }

    private static func run(_ text: String, skeleton: Bool) -> String? {
        if text.isEmpty { return "" }
        let units = Array(text.utf16)
        var capacity = max(16, units.count * 2)
        while true {
            var output = [UInt16](repeating: 0, count: capacity)
            let written = units.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer { out in
                    soom_unicode_key(input.baseAddress, Int32(input.count), skeleton ? 1 : 0, out.baseAddress, Int32(out.count))
                }
            }
            if written < 0 { return nil }
            if Int(written) <= capacity { return String(decoding: output[..<Int(written)], as: UTF16.self) }
            capacity = Int(written)
        }
    }
}
