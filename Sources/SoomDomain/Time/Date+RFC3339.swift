import Foundation

extension Date {
    /// An RFC 3339 time (`2026-12-01T03:00:00Z`, `2026-12-01T12:00:00.5+09:00`), with or without
    /// fractional seconds; nil for anything else.
    public init?(rfc3339 text: String) {
        guard text.count <= 64 else { return nil }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
            self = date
        } else if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) {
            self = date
        } else {
            return nil
        }
    }
}
