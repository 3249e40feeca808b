/// A card's text: 1–500 characters as people see them (grapheme clusters, so 500 Hangul
/// syllables fit) and at most 6,000 bytes of UTF-8, not only whitespace; newlines and tabs
/// allowed, other control characters not, and `WrittenText`'s rules for marks and direction.
public struct CardContent: Sendable, Equatable {
    public static let maximumLength = 500
    public static let maximumBytes = 6_000
    static let rules = WrittenText(field: "content", maximumCharacters: maximumLength, maximumBytes: maximumBytes, multiline: true)

    public let text: String

    public init(validating raw: String) throws(SoomError) {
        try Self.rules.check(raw)
        if raw.unicodeScalars.allSatisfy({ $0.properties.isWhitespace || $0.properties.isDefaultIgnorableCodePoint }) {
            throw .validationFailed(field: "content", "content needs at least one visible character.")
        }
        self.text = raw
    }
}
