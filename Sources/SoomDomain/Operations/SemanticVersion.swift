/// A client's version, `MAJOR.MINOR.PATCH` (each 1–9 decimal digits), ordered as semantic
/// versioning orders them: by major, then minor, then patch.
public struct SemanticVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let major: Int
    public let minor: Int
    public let patch: Int

    public init(major: Int, minor: Int, patch: Int) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Parses `MAJOR.MINOR.PATCH`; nil for anything else (a pre-release suffix, a `v`, a sign).
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            parts.allSatisfy({ (1...9).contains($0.utf8.count) && $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }),
            let major = Int(parts[0]), let minor = Int(parts[1]), let patch = Int(parts[2])
        else { return nil }
        self.init(major: major, minor: minor, patch: patch)
    }

    /// Parses or throws the contract's `422 validation_failed` naming `field`.
    public init(validating text: String, field: String) throws(SoomError) {
        guard let version = SemanticVersion(text) else {
            throw .validationFailed(field: field, "A version is MAJOR.MINOR.PATCH, such as 1.4.0.")
        }
        self = version
    }

    public var description: String { "\(self.major).\(self.minor).\(self.patch)" }

    public static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }
}
