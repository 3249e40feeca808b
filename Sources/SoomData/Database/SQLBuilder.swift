import PostgresNIO

/// Builds a statement from pieces when its shape depends on the request (feeds with and
/// without a cursor, a location box or two) or on a loop (the seed generator's batches). Values
/// are always bound, never spliced in; a placeholder may be used any number of times. Only text
/// written by us (never by a client) and numbers we format ourselves are appended.
public struct SQLBuilder {
    public private(set) var sql = ""
    public private(set) var binds = PostgresBindings()

    public init() {}

    /// Appends SQL text written by us (never by a client).
    public mutating func append(_ text: String) {
        self.sql += text
    }

    /// Binds `value` and returns its placeholder (`$n`).
    public mutating func bind(_ value: some PostgresDynamicTypeEncodable) -> String {
        self.binds.append(value)
        return "$\(self.binds.count)"
    }

    public mutating func bind(_ value: (some PostgresDynamicTypeEncodable)?) -> String {
        self.binds.append(value)
        return "$\(self.binds.count)"
    }

    /// Binds a value whose encoding may fail (`Data`, say).
    public mutating func bind(_ value: some PostgresThrowingDynamicTypeEncodable) throws -> String {
        try self.binds.append(value)
        return "$\(self.binds.count)"
    }

    /// Binds an array; returns `($n::type)`, ready to subscript.
    public mutating func bindArray(_ values: some PostgresDynamicTypeEncodable, type: String) -> String {
        "(\(self.bind(values))::\(type))"
    }

    /// The statement appended so far.
    public var query: PostgresQuery { PostgresQuery(unsafeSQL: self.sql, binds: self.binds) }

    /// The statement appended so far followed by `text`, for statements written after their values are bound.
    public func query(_ text: String) -> PostgresQuery { PostgresQuery(unsafeSQL: self.sql + text, binds: self.binds) }
}
