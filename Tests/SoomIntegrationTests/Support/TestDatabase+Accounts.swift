import Foundation
import SoomCrypto
import SoomDomain

extension TestDatabase {
    /// Creates `count` accounts with live sessions directly in SQL (RSA key generation is too slow
    /// for tests that need many people) and returns their bearer tokens. The first few accounts hold
    /// the keys of `TestDevice.made(index)`, so that they can sign (to withdraw, say); the others hold none.
    func makeAccounts(_ count: Int) async throws -> [String] {
        var tokens: [String] = []
        for index in 0..<count {
            let token = Base64URL.encode(SecureRandom.bytes(32))
            let id = UUID()
            let nickname = "p\(index)_\(UUID().uuidString.prefix(4))"
            let key = index < TestDevice.madeKeys.count ? try DevicePublicKey(pem: TestDevice.made(index).publicKeyPEM) : nil
            let der = key?.subjectPublicKeyInfoDER ?? [0]
            let fingerprint = key?.fingerprint ?? SecureRandom.bytes(32)
            try await self.execute(
                """
                WITH account AS (
                    INSERT INTO accounts (id, key_fingerprint, public_key, nickname, nickname_key, created_at)
                    VALUES (\(id), \(Data(fingerprint)), \(Data(der)), \(nickname), \(nickname.lowercased()), now())
                    RETURNING id)
                INSERT INTO sessions (token_hash, account_id, expires_at)
                SELECT \(Data(SHA256Digest.hash(Array(token.utf8)))), id, now() + interval '1 day' FROM account
                """)
            tokens.append(token)
        }
        return tokens
    }
}
