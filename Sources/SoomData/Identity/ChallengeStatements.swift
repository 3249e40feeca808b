import Foundation
import PostgresNIO
import SoomDomain

/// Every login writes one challenge and reads one back: prepared statements, planned once per connection.
enum ChallengeStatements {
    struct Insert: PostgresPreparedStatement {
        static let sql = "INSERT INTO auth_challenges (id, nonce, expires_at) VALUES ($1, $2, $3)"
        typealias Row = Void

        let challenge: Challenge

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(self.challenge.id)
            bindings.append(self.challenge.nonce)
            bindings.append(self.challenge.expiresAt)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws {}
    }

    struct Find: PostgresPreparedStatement {
        static let sql = "SELECT nonce, expires_at FROM auth_challenges WHERE id = $1"
        typealias Row = Challenge

        let id: UUID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(self.id)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Challenge {
            let (nonce, expiresAt) = try row.decode((String, Date).self)
            return Challenge(id: self.id, nonce: nonce, expiresAt: expiresAt)
        }
    }
}
