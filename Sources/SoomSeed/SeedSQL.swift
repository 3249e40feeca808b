import PostgresNIO

/// Statement text whose values are all bound; only numbers we format ourselves are spliced in.
struct SeedSQL {
    private var bindings = PostgresBindings()

    /// Binds `value`; returns its placeholder (`$n`), usable any number of times.
    mutating func bind(_ value: some PostgresThrowingDynamicTypeEncodable) throws -> String {
        try self.bindings.append(value)
        return "$\(self.bindings.count)"
    }

    /// Binds an array; returns `($n::type)`, ready to subscript.
    mutating func bindArray(_ values: some PostgresThrowingDynamicTypeEncodable, type: String) throws -> String {
        "(\(try self.bind(values))::\(type))"
    }

    func query(_ sql: String) -> PostgresQuery {
        PostgresQuery(unsafeSQL: sql, binds: self.bindings)
    }
}
