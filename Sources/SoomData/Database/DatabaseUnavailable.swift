/// PostgreSQL could not be reached. `withDeadline` reports it as `SoomError.databaseUnavailable`
/// (`503 database_unavailable`).
public struct DatabaseUnavailable: Error, CustomStringConvertible, Sendable {
    public let reason: String
    public var description: String { "database unavailable: \(self.reason)" }
}
