/// Rules for free text an account writes about itself (`WrittenText`'s rules, multi-line).
public enum ProfileText {
    public static let bioMaximumLength = 150
    public static let withdrawalReasonMaximumLength = 500

    /// A bio: 0–150 characters, at most 1,800 bytes; newlines allowed, other control characters not.
    public static func bio(_ raw: String) throws(SoomError) -> String {
        try WrittenText(field: "bio", maximumCharacters: Self.bioMaximumLength, maximumBytes: 1_800, multiline: true).check(raw)
        return raw
    }

    /// A withdrawal reason: 0–500 characters, at most 6,000 bytes.
    public static func withdrawalReason(_ raw: String) throws(SoomError) -> String {
        try WrittenText(field: "reason", maximumCharacters: Self.withdrawalReasonMaximumLength, maximumBytes: 6_000, multiline: true).check(raw)
        return raw
    }
}
