import PostgresNIO
import SoomDomain

extension PostgresQuery.StringInterpolation {
    /// `position` as the SQL row `(timestamptz, uuid)` of a keyset condition, its two values
    /// bound: `WHERE (n.created_at, n.id) < \(position: position)` reads what is older than it.
    mutating func appendInterpolation(position: FeedPosition) {
        self.appendLiteral("(timestamptz 'epoch' + ")
        self.appendInterpolation(position.createdAtMicros)
        self.appendLiteral("::int8 * interval '1 microsecond', ")
        self.appendInterpolation(position.id)
        self.appendLiteral(")")
    }
}
