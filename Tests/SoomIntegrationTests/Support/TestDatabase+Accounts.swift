import Foundation
import SoomCrypto
import SoomDomain

extension TestDatabase {
    /// Creates `count` accounts with live sessions directly in SQL (RSA key generation is too slow
    /// for tests that need many people) and returns their bearer tokens.
    func makeAccounts(_ count: Int) async throws -> [String] {
        var tokens: [String] = []
        for index in 0..<count {
            let token = Base64URL.encode(SecureRandom.bytes(32))
            let id = UUID()
            let nickname = "p\(index)_\(UUID().uuidString.prefix(4))"
            try await self.execute(
                """
                WITH account AS (
                    INSERT INTO accounts (id, key_fingerprint, public_key, nickname, nickname_key, created_at)
                    VALUES (\(id), \(Data(SecureRandom.bytes(32))), \(Data([0])), \(nickname), \(nickname.lowercased()), now())
                    RETURNING id)
                INSERT INTO sessions (token_hash, account_id, expires_at)
                SELECT \(Data(SHA256Digest.hash(Array(token.utf8)))), id, now() + interval '1 day' FROM account
                """)
            tokens.append(token)
        }
        return tokens
    }
}
