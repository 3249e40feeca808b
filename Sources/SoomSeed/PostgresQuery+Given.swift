import Foundation
import PostgresNIO

extension PostgresQuery.StringInterpolation {
    /// The common table `given`: the seed's "now" (`anchor`) and `arrays` (word lists, tag
    /// names), each bound once, as one row that `SeedRun`'s and `SeedVocabulary`'s fragments read
    /// (`(SELECT anchor FROM given)`, `SeedVocabulary.pick`). A fragment cannot bind a value of
    /// its own; naming the value here lets it be written once and read anywhere in the statement.
    mutating func appendInterpolation(given anchor: Date, _ arrays: [(String, [String])] = []) {
        self.appendLiteral("given AS MATERIALIZED (SELECT ")
        self.appendInterpolation(anchor)
        self.appendLiteral("::timestamptz AS anchor")
        for (name, values) in arrays {
            self.appendLiteral(", ")
            self.appendInterpolation(values)
            self.appendLiteral("::text[] AS \(name)")
        }
        self.appendLiteral(")")
    }
}
