import PostgresNIO
import SoomDomain

/// How logs show a PostgreSQL error (`loggableDescription(of:)`): only the code, SQLSTATE and the
/// server's message — never the statement's bound values, which may be secrets (token hashes, keys).
extension PSQLError: LoggableError {
    public var loggableDescription: String {
        "PostgreSQL \(self.code) \(self.serverInfo?[.sqlState] ?? "-"): \(self.serverInfo?[.message] ?? "-")"
    }
}
