/// The one shape of a keyset-paged feed read by a prepared statement: newest first by two keys,
/// below the cursor, read from a subquery bounded by the constant `CardStatements.maximumPageRows`
/// and cut to the page's rows outside (see `PageStatement` for why the bound is a constant).
enum KeysetPageSQL {
    /// The statement's text. The feed's own parameters are taken from `parameters` before (they
    /// appear in `columns`, `from` and `scope`); this takes the cursor's microseconds and card ID
    /// (`FeedPosition.top` on a first page), then the page's rows — `PageStatement`'s order.
    static func text(columns: String, from: String, scope: String, keys: (createdAt: String, id: String), parameters: inout Parameters) -> String {
        let (micros, id, rows) = (parameters.next(), parameters.next(), parameters.next())
        return """
            SELECT * FROM (
                SELECT \(columns) \(from)
                WHERE \(scope)
                  AND (\(keys.createdAt), \(keys.id)) < (timestamptz 'epoch' + \(micros)::int8 * interval '1 microsecond', \(id))
                ORDER BY \(keys.createdAt) DESC, \(keys.id) DESC LIMIT \(CardStatements.maximumPageRows)
            ) page LIMIT \(rows)
            """
    }

    /// `text` for a page of cards as `viewer` (a placeholder) sees them: `scope` of `from`
    /// (`cards c` joined to what else the scope needs), only cards `CardRow.visible` to them.
    static func cards(
        viewer: String, from: String = "FROM cards c", scope: String, keys: (createdAt: String, id: String) = ("c.created_at", "c.id"),
        parameters: inout Parameters
    ) -> String {
        Self.text(
            columns: CardRow.select(viewer: viewer), from: "\(from) \(CardRow.joins(viewer: viewer))",
            scope: "\(scope) AND \(CardRow.visible(to: viewer))", keys: keys, parameters: &parameters)
    }
}
