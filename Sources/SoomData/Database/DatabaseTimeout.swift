/// The operation did not finish within its deadline (or PostgreSQL ended a statement or lock wait
/// at the server's statement timeout), and had no effect. `withDeadline` reports it as
/// `SoomError.databaseTimeout` (`503 timeout`).
public struct DatabaseTimeout: Error, CustomStringConvertible, Sendable {
    public init() {}
    public var description: String { "database operation timed out" }
}
