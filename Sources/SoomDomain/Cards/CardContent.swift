/// A card's text: 1–500 characters as people see them (grapheme clusters, so 500 Hangul
/// syllables fit), not only whitespace; newlines and tabs allowed, other control characters not.
public struct CardContent: Sendable, Equatable {
    public static let maximumLength = 500

    public let text: String

    public init(validating raw: String) throws(SoomError) {
        if raw.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) {
            throw .validationFailed(field: "content", "content needs at least one visible character.")
        }
        if raw.count > Self.maximumLength {
            throw .validationFailed(field: "content", "content has at most \(Self.maximumLength) characters.")
        }
        let forbidden = raw.unicodeScalars.contains { scalar in
            scalar.properties.generalCategory == .control && scalar != "\n" && scalar != "\r" && scalar != "\t"
        }
        if forbidden {
            throw .validationFailed(field: "content", "content may not contain control characters.")
        }
        self.text = raw
    }
}
