import Foundation
import PostgresNIO
import SoomDomain

/// The account behind a live session token: run on every authenticated request, so it is a
/// prepared statement (parsed and planned once per connection, not once per request).
struct SessionAccountStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT \(AccountRow.columns("a")) FROM sessions s JOIN accounts a ON a.id = s.account_id
        WHERE s.token_hash = $1 AND s.expires_at > $2
        """

    typealias Row = Account

    let tokenHash: Data
    let now: Date

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        try bindings.append(self.tokenHash)
        bindings.append(self.now)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Account {
        try AccountRow.decode(row)
    }
}
