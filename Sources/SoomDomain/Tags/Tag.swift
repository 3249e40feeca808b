import Foundation

/// A hashtag, normalised as the contract says: trimmed, Unicode NFC, one leading `#` removed,
/// invisible (default-ignorable) characters removed; letters, digits and `_` only; 1–15
/// characters and at most 120 bytes; compared by its NFKC case fold, so `cafe`, `CAFE`,
/// full-width `ｃａｆｅ`, `cafe` + U+FE0F and `cafe` + U+3164 are one tag. (Not by the confusable
/// skeleton, as nicknames are: it would merge ordinary words such as `corn` and `com`.)
public struct Tag: Sendable, Hashable {
    public static let maximumLength = 15
    public static let maximumPerCard = 10
    public static let maximumBytes = 120

    /// The spelling as written (after normalisation).
    public let name: String

    /// NFKC case-folded (`UnicodeSecurity.folded`): two tags are the same tag when their keys are equal.
    public var key: String { Self.fold(self.name) }

    /// The folded form of already-normalised text: the tag key, or a search prefix of keys.
    public static func fold(_ text: String) -> String { UnicodeSecurity.folded(text) }

    /// Normalises `raw`, or explains what is wrong with it.
    public init(normalising raw: String, field: String = "tags") throws(SoomError) {
        // Bound the work before normalising anything.
        guard raw.utf8.count <= Self.maximumBytes * 4 else {
            throw .validationFailed(field: field, "A tag has at most \(Self.maximumLength) characters.")
        }
        var text = raw.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        if text.hasPrefix("#") { text.removeFirst() }
        text.unicodeScalars.removeAll { $0.properties.isDefaultIgnorableCodePoint || $0.properties.isVariationSelector }
        text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty { throw .validationFailed(field: field, "A tag needs at least one visible character.") }
        if text.utf8.count > Self.maximumBytes || text.count > Self.maximumLength {
            throw .validationFailed(field: field, "A tag has at most \(Self.maximumLength) characters.")
        }
        guard text.unicodeScalars.allSatisfy(Self.isAllowed),
            !text.contains(where: { WrittenText.marks(in: $0) > WrittenText.maximumMarksPerCharacter })
        else {
            throw .validationFailed(field: field, "A tag may use letters, digits and _ only.")
        }
        self.name = text
    }

    /// Normalises a card's tags: duplicates (ignoring case) collapse to the first; at most ten remain allowed.
    public static func normalise(_ raw: [String]) throws(SoomError) -> [Tag] {
        // Bound the work before normalising anything: a card may list a few duplicates, not thousands.
        guard raw.count <= Self.maximumPerCard * 5 else {
            throw .validationFailed(field: "tags", "A card has at most \(Self.maximumPerCard) tags.")
        }
        var seen = Set<String>()
        var tags: [Tag] = []
        for text in raw {
            let tag = try Tag(normalising: text)
            if seen.insert(tag.key).inserted { tags.append(tag) }
        }
        guard tags.count <= Self.maximumPerCard else {
            throw .validationFailed(field: "tags", "A card has at most \(Self.maximumPerCard) tags.")
        }
        return tags
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "_" { return true }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber,
            .nonspacingMark, .spacingMark:
            return true
        default:
            return false
        }
    }
}
