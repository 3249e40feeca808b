import Foundation

extension Date {
    /// This time as the contract shows times, whole milliseconds, chosen so that it reads back
    /// the same from PostgreSQL: a `Date` holding exactly `.336` is a binary fraction a hair
    /// below it (`.33599999…`), which the driver stores as `.335999` and the JSON writer would
    /// then show as `.335`. Half a microsecond above the millisecond stores as `.336000` or
    /// `.336001` and shows as `.336` both ways, so a created card or account shows the same
    /// `createdAt` in the response that made it and in every later read.
    public var stamp: Date {
        Date(timeIntervalSince1970: (self.timeIntervalSince1970 * 1000).rounded(.down) / 1000 + 0.000_000_5)
    }
}
