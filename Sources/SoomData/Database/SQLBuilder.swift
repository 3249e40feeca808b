import PostgresNIO

/// Builds a statement from pieces when its shape depends on the request (feeds with and
/// without a cursor, a location box or two). Values are always bound, never spliced in.
struct SQLBuilder {
    private(set) var sql = ""
    private(set) var binds = PostgresBindings()

    /// Appends SQL text written by us (never by a client).
    mutating func append(_ text: String) {
        self.sql += text
    }

    /// Binds `value` and returns its placeholder (`$n`).
    mutating func bind(_ value: some PostgresDynamicTypeEncodable) -> String {
        self.binds.append(value)
        return "$\(self.binds.count)"
    }

    mutating func bind(_ value: (some PostgresDynamicTypeEncodable)?) -> String {
        self.binds.append(value)
        return "$\(self.binds.count)"
    }

    var query: PostgresQuery { PostgresQuery(unsafeSQL: self.sql, binds: self.binds) }
}
