/// Rules for free text an account writes about itself.
public enum ProfileText {
    public static let bioMaximumLength = 150
    public static let withdrawalReasonMaximumLength = 500

    /// A bio: 0–150 characters; newlines allowed, other control characters not.
    public static func bio(_ raw: String) throws(SoomError) -> String {
        try Self.text(raw, field: "bio", maximum: Self.bioMaximumLength)
    }

    /// A withdrawal reason: 0–500 characters.
    public static func withdrawalReason(_ raw: String) throws(SoomError) -> String {
        try Self.text(raw, field: "reason", maximum: Self.withdrawalReasonMaximumLength)
    }

    static func text(_ raw: String, field: String, maximum: Int) throws(SoomError) -> String {
        if raw.count > maximum {
            throw .validationFailed(field: field, "\(field) has at most \(maximum) characters.")
        }
        let forbidden = raw.unicodeScalars.contains { scalar in
            scalar.properties.generalCategory == .control && scalar != "\n" && scalar != "\r" && scalar != "\t"
        }
        if forbidden {
            throw .validationFailed(field: field, "\(field) may not contain control characters.")
        }
        return raw
    }
}
