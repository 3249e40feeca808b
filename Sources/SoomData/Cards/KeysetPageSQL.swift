/// The one shape of a keyset-paged card feed read by a prepared statement (the latest feed and the
/// tag feeds): newest first by two keys, below the cursor on a later page, read from a subquery
/// bounded by the constant `CardStatements.maximumPageRows` and cut to the page's `$n` outside
/// (see `CardStatements` for why the bound is a constant).
///
/// Parameters: `$1` is the viewer, `scope` may use those before `first`; from `first` on come the
/// cursor's microseconds and card ID (later pages only), then the page's rows.
enum KeysetPageSQL {
    static func text(
        columns: String, from: String, scope: String, keys: (createdAt: String, id: String), first: Int, afterCursor: Bool
    ) -> String {
        let below =
            afterCursor
            ? "\n      AND (\(keys.createdAt), \(keys.id)) < (timestamptz 'epoch' + $\(first)::int8 * interval '1 microsecond', $\(first + 1))" : ""
        let limit = afterCursor ? first + 2 : first
        return """
            SELECT * FROM (
                SELECT \(columns) \(from)
                WHERE \(scope)\(below)
                ORDER BY \(keys.createdAt) DESC, \(keys.id) DESC LIMIT \(CardStatements.maximumPageRows)
            ) page LIMIT $\(limit)
            """
    }
}
