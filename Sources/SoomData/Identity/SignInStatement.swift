import Foundation
import PostgresNIO
import SoomDomain
import Synchronization

/// A sign-in in one prepared statement: find the account by its key's fingerprint, spend the
/// challenge only when the account exists, and open the session only when this very statement
/// spent the challenge. No row: the key is unknown (and the challenge stays unspent).
struct SignInStatement: NamedStatement {
    static let sql: String = {
        var parameters = Parameters()
        let fingerprint = parameters.next()
        let nonce = parameters.next()
        let challengeExpiry = parameters.next()
        let tokenHash = parameters.next()
        let sessionExpiry = parameters.next()
        return """
            WITH account AS (SELECT \(AccountRow.select) FROM accounts a WHERE a.key_fingerprint = \(fingerprint)),
            spent AS (
                INSERT INTO spent_challenges (nonce, expires_at)
                SELECT \(nonce), \(challengeExpiry) WHERE EXISTS (SELECT 1 FROM account)
                ON CONFLICT (nonce) DO NOTHING
                RETURNING 1),
            opened AS (
                INSERT INTO sessions (token_hash, account_id, expires_at)
                SELECT \(tokenHash), account.id, \(sessionExpiry) FROM account, spent
                RETURNING 1)
            SELECT \(AccountRow.select), EXISTS (SELECT 1 FROM opened) FROM account a
            """
    }()

    typealias Row = (opened: Bool, account: Account)

    let fingerprint: [UInt8]
    let challenge: Challenge
    let session: StoredSession

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 5)
        try bindings.append(Data(self.fingerprint))
        try bindings.append(Data(self.challenge.nonceBytes))
        bindings.append(self.challenge.expiresAt)
        try bindings.append(Data(self.session.tokenHash))
        bindings.append(self.session.expiresAt)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        var cells = RowCells(row)
        let account = try AccountRow.decode(&cells)
        return (opened: try cells.next(Bool.self), account: account)
    }
}

/// Secrets read once from `server_secrets` and then kept for the life of the process.
final class SecretCache: Sendable {
    private let storage = Mutex<[UInt8]?>(nil)

    var challenge: [UInt8]? {
        get { self.storage.withLock { $0 } }
        set { self.storage.withLock { $0 = newValue } }
    }
}
