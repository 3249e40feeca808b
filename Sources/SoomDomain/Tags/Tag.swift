import Foundation

/// A hashtag, normalised as the contract says: trimmed, Unicode NFC, one leading `#` removed;
/// letters, digits and `_` only; 1–15 characters; compared ignoring case.
public struct Tag: Sendable, Hashable {
    public static let maximumLength = 15
    public static let maximumPerCard = 10

    /// The spelling as written (after normalisation).
    public let name: String

    /// Case-folded (lower-cased, then NFC again): two tags are the same tag when their keys are equal.
    public var key: String { Self.fold(self.name) }

    /// The case-folded form of already-normalised text: the tag key, or a search prefix of keys.
    public static func fold(_ text: String) -> String { text.lowercased().precomposedStringWithCanonicalMapping }

    /// Normalises `raw`, or explains what is wrong with it.
    public init(normalising raw: String, field: String = "tags") throws(SoomError) {
        var text = raw.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        if text.hasPrefix("#") { text.removeFirst() }
        if text.isEmpty { throw .validationFailed(field: field, "A tag needs at least one character.") }
        if text.count > Self.maximumLength { throw .validationFailed(field: field, "A tag has at most \(Self.maximumLength) characters.") }
        guard text.unicodeScalars.allSatisfy(Self.isAllowed) else {
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
