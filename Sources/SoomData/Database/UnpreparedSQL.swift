import PostgresNIO

/// The one place that sends SQL text PostgreSQL cannot take as a statement with parameters:
/// statements that name a database or tables (identifiers are never parameters) and the
/// migration files (several statements in one). Everything else is a prepared statement type or
/// an interpolated `PostgresQuery`, its values bound. What goes in here is ours — a migration file
/// compiled into the binary, a database name from the configuration, table names from the catalog
/// — and every identifier is quoted.
enum UnpreparedSQL {
    /// A migration file as one query. PostgresNIO speaks only the extended query protocol (one
    /// statement per query); PL/pgSQL's EXECUTE runs a multi-statement string, so the file
    /// travels as one dollar-quoted literal, with tags it cannot contain.
    static func script(_ sql: String) -> PostgresQuery {
        var tag = "soom_migration"
        while sql.contains(tag) { tag += "_" + String(UInt32.random(in: 0...UInt32.max), radix: 36) }
        return PostgresQuery(unsafeSQL: "DO $\(tag)_do$ BEGIN EXECUTE $\(tag)$\(sql)$\(tag)$; END $\(tag)_do$")
    }

    /// `ANALYZE (SKIP_LOCKED)` of `tables`, names read from the catalog.
    static func analyze(_ tables: [String]) -> PostgresQuery {
        PostgresQuery(unsafeSQL: "ANALYZE (SKIP_LOCKED) " + tables.map(Self.identifier).joined(separator: ", "))
    }

    /// `CREATE DATABASE` of `name`.
    static func createDatabase(_ name: String) -> PostgresQuery {
        PostgresQuery(unsafeSQL: "CREATE DATABASE " + Self.identifier(name))
    }

    /// `name` quoted as an SQL identifier.
    static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
