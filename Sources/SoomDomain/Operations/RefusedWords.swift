/// The words operators refuse in nicknames and tags (`soom admin words`). A name is refused when
/// its folded form contains a word's folded form, where folding is NFKC case folding without
/// default-ignorable characters (`UnicodeSecurity.folded`: full-width letters, zero-width
/// characters), then without white space, punctuation and symbols, so `ㅅ ㅂ`, `Ｆｕｃｋ` and
/// `f.u.c.k` meet `ㅅㅂ` and `fuck`. Card text is not filtered.
public struct RefusedWords: Sendable, Equatable {
    /// The words as the operator wrote them, in the order given.
    public let words: [String]
    /// Their folded forms' UTF-8, each non-empty.
    let keys: [[UInt8]]

    public static let none = RefusedWords([])

    public init(_ words: [String]) {
        self.words = words
        self.keys = words.map { Array(Self.key(for: $0).utf8) }.filter { !$0.isEmpty }
    }

    /// Whether `text` contains a refused word: a search of the folded forms' bytes (both sides are
    /// NFKC, so equal text is equal bytes; every post's tags are checked, so no `Character` walk).
    public func refuses(_ text: String) -> Bool {
        guard !self.keys.isEmpty else { return false }
        let folded = Array(Self.key(for: text).utf8)
        return self.keys.contains { folded.firstRange(of: $0) != nil }
    }

    /// - Throws: `422 validation_failed` naming `field` when a tag contains a refused word.
    public func require(_ tags: [Tag], field: String = "tags") throws(SoomError) {
        if let refused = tags.first(where: { self.refuses($0.name) }) {
            throw .validationFailed(field: field, "The tag \(refused.name) contains a word that is not allowed.")
        }
    }

    /// What comparisons see: folded, without separators, punctuation and symbols. Empty for a word
    /// made of nothing else (which then refuses nothing).
    public static func key(for text: String) -> String {
        var folded = UnicodeSecurity.folded(text)
        folded.unicodeScalars.removeAll { scalar in
            switch scalar.properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator, .control, .format,
                .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
                .finalPunctuation, .otherPunctuation, .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
                true
            default:
                scalar.properties.isWhitespace
            }
        }
        return folded
    }
}
