/// The one shape of a keyset-paged feed read by a prepared statement: newest first by two keys,
/// below the cursor, read from a subquery bounded by the constant `CardStatements.maximumPageRows` and
/// cut to the page's rows outside (see `PageStatement` for why the bound is a constant).
///
/// Parameters: the feed's own (`$1` …) come first; from `first` on come the cursor's microseconds
/// and card ID (`FeedPosition.top` on a first page), then the page's rows.
enum KeysetPageSQL {
    static func text(columns: String, from: String, scope: String, keys: (createdAt: String, id: String), first: Int) -> String {
        """
        SELECT * FROM (
            SELECT \(columns) \(from)
            WHERE \(scope)
              AND (\(keys.createdAt), \(keys.id)) < (timestamptz 'epoch' + $\(first)::int8 * interval '1 microsecond', $\(first + 1))
            ORDER BY \(keys.createdAt) DESC, \(keys.id) DESC LIMIT \(CardStatements.maximumPageRows)
        ) page LIMIT $\(first + 2)
        """
    }
}
