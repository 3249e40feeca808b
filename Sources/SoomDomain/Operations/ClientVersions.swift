/// The platforms whose clients check their version (`GET /v1/client-versions/{platform}`).
public enum ClientPlatform: String, Sendable, CaseIterable {
    case ios, android, web
}

/// An operator's versions for one platform: the newest client, and the oldest still served
/// (`soom admin client-version set`).
public struct ClientVersionPolicy: Sendable, Equatable {
    public let latest: SemanticVersion
    public let minimum: SemanticVersion

    /// A platform the operator has said nothing about: every version is `ok`.
    public static let unset = ClientVersionPolicy(latest: .init(major: 0, minor: 0, patch: 0), minimum: .init(major: 0, minor: 0, patch: 0))

    public init(latest: SemanticVersion, minimum: SemanticVersion) {
        self.latest = latest
        self.minimum = minimum
    }

    /// What a client of `version` should do: update (required below `minimum`, offered below `latest`) or nothing.
    public func status(of version: SemanticVersion) -> ClientVersionStatus {
        if version < self.minimum { return .updateRequired }
        if version < self.latest { return .updateAvailable }
        return .ok
    }
}

/// The contract's `status` of a version check.
public enum ClientVersionStatus: String, Sendable {
    case ok
    case updateAvailable = "update_available"
    case updateRequired = "update_required"
}
