/// The failures of storage that reach a caller, as the data layer reports them at its boundary
/// (`Database.withDeadline`): the domain and the HTTP layer never see a driver's error types.
extension SoomError {
    /// The operation did not finish within its deadline (or PostgreSQL ended a statement or lock
    /// wait at the server's statement timeout), and had no effect.
    public static let databaseTimeout = SoomError(
        .timeout, code: "timeout", message: "The request could not finish within 10 seconds and had no effect; try again.",
        cause: "database operation timed out")

    /// PostgreSQL could not be reached; `reason` says how (a connection error code, no pooled
    /// connection in time), never a value.
    public static func databaseUnavailable(reason: String) -> SoomError {
        SoomError(
            .unavailable, code: "database_unavailable", message: "The database cannot be reached right now; try again shortly.",
            cause: "database unavailable: \(reason)")
    }

    /// A data exception (SQLSTATE class 22: a NUL character in text, a number out of range, …):
    /// a value from the request that validation let through. Only the SQLSTATE is kept, never the
    /// server's message, which may quote the value.
    public static func unstorableValue(sqlState: String) -> SoomError {
        SoomError(
            .unstorableValue, code: "invalid_request", message: "The request holds a value that cannot be stored (for example a NUL character).",
            cause: sqlState)
    }
}
