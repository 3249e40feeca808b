/// Moves an account to a new device: a transfer code from the old device plus a `transfer`
/// signature by the new key. The old key and all its sessions stop working.
public struct TransferAccount: Sendable {
    static let maximumCodeLength = 64

    let environment: IdentityEnvironment

    public init(_ environment: IdentityEnvironment) {
        self.environment = environment
    }

    public func callAsFunction(code: String, proof: DeviceProof) async throws -> SignedInAccount {
        guard code.count <= Self.maximumCodeLength else {
            throw SoomError.validationFailed(field: "code", "code has at most \(Self.maximumCodeLength) characters.")
        }
        let (key, challenge) = try await proof.verify(for: .transfer, in: self.environment)
        guard let canonical = TransferCode.canonical(code) else { throw SoomError.invalidTransferCode }
        let now = self.environment.now()
        let (token, stored) = self.environment.makeSession(at: now)
        let codeHash = self.environment.crypto.sha256(Array(canonical.utf8))
        switch try await self.environment.repository.transfer(codeHash: codeHash, newKey: key, session: stored, challenge: challenge, now: now) {
        case .transferred(let account):
            return SignedInAccount(account: account, session: token)
        case .challengeUnavailable: throw SoomError.invalidSignature("The challenge was already used or has expired.")
        case .invalidCode: throw SoomError.invalidTransferCode
        case .keyAlreadyRegistered: throw SoomError.deviceAlreadyRegistered
        }
    }
}
