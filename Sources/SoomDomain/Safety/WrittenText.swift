/// The rules every text people write shares, whatever its field: what a reader can be shown
/// safely, and a size bounded in bytes as well as in characters.
///
/// A "character" is a grapheme cluster, so a limit of 500 lets 500 Hangul syllables or emoji
/// through; but one cluster can hold thousands of combining marks (`a` + 3,990 accents is one
/// character of 8 KB), so each field also has a byte limit and each character at most
/// `maximumMarksPerCharacter` combining marks. Direction controls that change how the text
/// *around* them is ordered are refused: the embeddings and overrides (U+202A–U+202E, the tool of
/// "txt.exe" spoofs) always, the isolates (U+2066–U+2069) unless each is closed by U+2069 on the
/// same line. Marks (LRM, RLM, ALM) only nudge their neighbours and are allowed.
public struct WrittenText: Sendable {
    /// Vietnamese, Thai, Hebrew with points and cantillation need at most four.
    public static let maximumMarksPerCharacter = 4
    /// Code points in one character: an emoji family with skin tones is 11, a flag of tags 7;
    /// joiners could otherwise chain any number of emoji into one "character".
    public static let maximumScalarsPerCharacter = 16

    /// The field's name in errors (`content`, `bio`, …).
    let field: String
    /// Grapheme clusters.
    let maximumCharacters: Int
    /// UTF-8 bytes.
    let maximumBytes: Int
    /// Newlines and tabs (cards, bios), or one line (names).
    let multiline: Bool

    public init(field: String, maximumCharacters: Int, maximumBytes: Int, multiline: Bool) {
        self.field = field
        self.maximumCharacters = maximumCharacters
        self.maximumBytes = maximumBytes
        self.multiline = multiline
    }

    /// `422 validation_failed` on the field for the first rule `text` breaks; nil when it keeps all.
    public func problem(in text: String) -> SoomError? {
        // Bytes first: they bound the cost of every later check.
        if text.utf8.count > self.maximumBytes || text.count > self.maximumCharacters {
            return .validationFailed(
                field: self.field, "\(self.field) has at most \(self.maximumCharacters) characters (and \(self.maximumBytes) bytes of UTF-8).")
        }
        var openIsolates = 0
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A, 0x0D:
                guard self.multiline else { return self.controlCharacters() }
                if openIsolates > 0 { return self.unbalancedDirection() }
            case 0x09:
                guard self.multiline else { return self.controlCharacters() }
            case 0x202A...0x202E:
                return self.unbalancedDirection()
            case 0x2066...0x2068:
                openIsolates += 1
            case 0x2069:
                guard openIsolates > 0 else { return self.unbalancedDirection() }
                openIsolates -= 1
            default:
                if scalar.properties.generalCategory == .control { return self.controlCharacters() }
            }
        }
        if openIsolates > 0 { return self.unbalancedDirection() }
        if text.contains(where: { $0.unicodeScalars.count > Self.maximumScalarsPerCharacter }) {
            return .validationFailed(field: self.field, "\(self.field) has a character of more than \(Self.maximumScalarsPerCharacter) code points.")
        }
        if text.contains(where: { Self.marks(in: $0) > Self.maximumMarksPerCharacter }) {
            return .validationFailed(
                field: self.field, "\(self.field) has a character with more than \(Self.maximumMarksPerCharacter) combining marks.")
        }
        return nil
    }

    /// Throws `problem(in:)`.
    public func check(_ text: String) throws(SoomError) {
        if let problem = self.problem(in: text) { throw problem }
    }

    static func marks(in character: Character) -> Int {
        character.unicodeScalars.reduce(0) { count, scalar in
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: count + 1
            default: count
            }
        }
    }

    private func controlCharacters() -> SoomError {
        .validationFailed(field: self.field, "\(self.field) may not contain control characters.")
    }

    private func unbalancedDirection() -> SoomError {
        .validationFailed(
            field: self.field,
            "\(self.field) may not contain direction overrides or embeddings (U+202A–U+202E), nor an isolate (U+2066–U+2068) not closed by U+2069 on its line."
        )
    }
}
