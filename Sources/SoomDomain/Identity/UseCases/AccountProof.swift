/// A signed-in account's proof that the device holding its *current* key asks for a change that
/// could take the account away for good (issuing a transfer code, withdrawing): the signature
/// scheme, a challenge and the signature over `soom:v1:<purpose>:<nonce>`, by the key the server
/// has on record. No public key is sent: a stolen session token alone cannot make one.
public struct AccountProof: Sendable, Equatable {
    public let algorithm: String
    public let challengeID: String
    public let signature: String

    public init(algorithm: String, challengeID: String, signature: String) {
        self.algorithm = algorithm
        self.challengeID = challengeID
        self.signature = signature
    }

    /// Checks the signature for `purpose` against the account's stored key.
    /// Does not spend the challenge: the repository does, in the transaction of the change, and
    /// refuses it there when the account's key changed meanwhile.
    /// - Throws: `422 validation_failed` for an unknown algorithm; `401 invalid_signature` for every failed proof.
    func verify(for purpose: SignaturePurpose, account: Account, in environment: IdentityEnvironment) async throws -> AccountSignature {
        let algorithm = try DeviceProof.parseAlgorithm(self.algorithm)
        guard let der = try await environment.repository.publicKey(accountID: account.id) else {
            throw SoomError.unauthorized
        }
        let key = try environment.crypto.deviceKey(der: der)
        let challenge = try await DeviceProof.check(
            DeviceProof.decodeSignature(self.signature), by: key, algorithm: algorithm, challengeID: self.challengeID, for: purpose,
            in: environment)
        return AccountSignature(challenge: challenge, fingerprint: key.fingerprint)
    }
}

/// A verified `AccountProof`: the challenge to spend and the fingerprint of the key that signed,
/// which must still be the account's when the change commits.
public struct AccountSignature: Sendable, Equatable {
    public let challenge: Challenge
    public let fingerprint: [UInt8]

    public init(challenge: Challenge, fingerprint: [UInt8]) {
        self.challenge = challenge
        self.fingerprint = fingerprint
    }
}

extension SignedChangeOutcome {
    /// Nothing for `.done`; the contract's `401 invalid_signature` for a refused change.
    func require() throws(SoomError) {
        switch self {
        case .done: return
        case .challengeUnavailable: throw .invalidSignature("The challenge was already used or has expired.")
        case .keyChanged: throw .invalidSignature("The signature is not by this account's current key.")
        }
    }
}
