import Foundation

/// Issues a one-time code that moves the caller's account to a new device, when the device signs
/// for it with the account's key; earlier codes stop working.
public struct IssueTransferCode: Sendable {
    let environment: IdentityEnvironment

    public init(_ environment: IdentityEnvironment) {
        self.environment = environment
    }

    public struct Issued: Sendable, Equatable {
        public let code: String
        public let expiresAt: Date

        public init(code: String, expiresAt: Date) {
            self.code = code
            self.expiresAt = expiresAt
        }
    }

    /// - Throws: `422` for an unknown algorithm; `401 invalid_signature` unless `proof` is a
    ///   `transfer-code` signature by the account's current key on an unspent challenge.
    public func callAsFunction(_ caller: Authenticate.Caller, proof: AccountProof) async throws -> Issued {
        let signature = try await proof.verify(for: .transferCode, account: caller.account, in: self.environment)
        let code = TransferCode.make(from: self.environment.crypto.randomBytes(10))
        let expiresAt = self.environment.now().addingTimeInterval(TransferCode.lifetime)
        let hash = self.environment.crypto.sha256(Array(TransferCode.canonical(code)!.utf8))
        try await self.environment.repository.insertTransferCode(
            hash: hash, accountID: caller.account.id, expiresAt: expiresAt, signature: signature
        ).require()
        return Issued(code: code, expiresAt: expiresAt)
    }
}
