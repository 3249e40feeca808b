import Foundation
import PostgresNIO
import SoomDomain

/// A live session and its account: run on every authenticated request that `SessionCache` cannot
/// answer, so it is a prepared statement (parsed and planned once per connection, not once per request).
struct SessionAccountStatement: NamedStatement {
    static let sql = """
        SELECT \(AccountRow.columns("a")), s.expires_at AS session_expires_at FROM sessions s JOIN accounts a ON a.id = s.account_id
        WHERE s.token_hash = $1 AND s.expires_at > $2
        """

    typealias Row = LiveSession

    let tokenHash: Data
    let now: Date

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        try bindings.append(self.tokenHash)
        bindings.append(self.now)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> LiveSession {
        LiveSession(account: try AccountRow.decode(row), expiresAt: try row.makeRandomAccess()["session_expires_at"].decode(Date.self))
    }
}
