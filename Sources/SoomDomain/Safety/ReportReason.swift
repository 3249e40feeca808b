/// Why a card is reported: the contract's list, nothing else.
public enum ReportReason: String, Sendable, CaseIterable {
    case abuse, privacy, advertising, sexual, impersonation, other

    /// - Throws: `422 validation_failed` on `reason` for anything not in the list.
    public init(validating raw: String) throws(SoomError) {
        guard let reason = ReportReason(rawValue: raw) else {
            throw .validationFailed(
                field: "reason", "reason must be one of: \(ReportReason.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        self = reason
    }
}
