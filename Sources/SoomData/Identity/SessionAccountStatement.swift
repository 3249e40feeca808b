import Foundation
import PostgresNIO
import SoomDomain

/// A live session and its account: run on every authenticated request that `SessionCache` cannot
/// answer, so it is a prepared statement (parsed and planned once per connection, not once per request).
struct SessionAccountStatement: NamedStatement {
    static let sql: String = {
        var parameters = Parameters()
        let tokenHash = parameters.next()
        let now = parameters.next()
        return """
            SELECT \(AccountRow.select), s.expires_at FROM sessions s JOIN accounts a ON a.id = s.account_id
            WHERE s.token_hash = \(tokenHash) AND s.expires_at > \(now)
            """
    }()

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
        var cells = RowCells(row)
        return LiveSession(account: try AccountRow.decode(&cells), expiresAt: try cells.next(Date.self))
    }
}
