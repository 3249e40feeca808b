import Foundation

/// A page of the operators' notices, newest first.
public struct ListNotices: Sendable {
    let operators: any OperatorRepository

    public init(_ operators: any OperatorRepository) {
        self.operators = operators
    }

    static let scope = "notices"

    public func callAsFunction(page: PageRequest) async throws -> (items: [Notice], nextCursor: String?) {
        let position = try page.cursor.map { cursor throws(SoomError) in try FeedCursor.decode(cursor, scope: Self.scope) }
        let result = try await self.operators.notices(after: position, limit: page.limit)
        return (result.items, result.next.map { FeedCursor.encode($0, scope: Self.scope) })
    }
}

/// What a client of one platform and version should do, by the operator's versions.
public struct CheckClientVersion: Sendable {
    let switches: OperatorSwitches

    public init(_ switches: OperatorSwitches) {
        self.switches = switches
    }

    /// - Throws: `404 not_found` for an unknown platform, `422` (`version`) for a version that is
    ///   not `MAJOR.MINOR.PATCH`.
    public func callAsFunction(platform: String, version: String) throws(SoomError) -> (
        platform: ClientPlatform, policy: ClientVersionPolicy, status: ClientVersionStatus
    ) {
        guard let known = ClientPlatform(rawValue: platform) else {
            throw SoomError(.notFound, code: "not_found", message: "There is no such platform; use ios, android or web.")
        }
        let version = try SemanticVersion(validating: version, field: "version")
        let policy = self.switches.clientVersions(of: known)
        return (known, policy, policy.status(of: version))
    }
}
