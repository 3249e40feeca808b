import PostgresNIO

/// An error as logs may show it: for PostgreSQL errors only the code, SQLSTATE and the server's
/// message — never the statement's bound values, which may be secrets (token hashes, keys).
public func loggableDescription(of error: any Error) -> String {
    guard let error = error as? PSQLError else { return "\(error)" }
    return "PostgreSQL \(error.code) \(error.serverInfo?[.sqlState] ?? "-"): \(error.serverInfo?[.message] ?? "-")"
}
