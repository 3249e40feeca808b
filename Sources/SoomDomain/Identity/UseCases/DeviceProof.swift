import Foundation

/// A device's proof of holding its key: the public key, the signature scheme, the challenge and
/// the signature over `soom:v1:<purpose>:<nonce>`, as the client sent them.
public struct DeviceProof: Sendable, Equatable {
    /// Bounds that stop oversized input before any parsing (a 4096-bit PEM is about 800 bytes).
    static let maximumPEMLength = 8 * 1024
    static let maximumSignatureLength = 2 * 1024

    public let publicKey: String
    public let algorithm: String
    public let challengeID: String
    public let signature: String

    public init(publicKey: String, algorithm: String, challengeID: String, signature: String) {
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.challengeID = challengeID
        self.signature = signature
    }

    /// A proof whose input is well-formed; the signature is not checked yet.
    struct Parsed {
        let key: any DeviceKey
        let algorithm: SignatureAlgorithm
        let challengeID: String
        let signature: [UInt8]?
    }

    /// Checks the input's form: `422 invalid_public_key` or `422 validation_failed` (algorithm).
    /// A malformed challenge ID or signature is not an input error but a failed proof, reported by `verify`.
    func parse(crypto: any IdentityCrypto) throws(SoomError) -> Parsed {
        let algorithm = try Self.parseAlgorithm(self.algorithm)
        guard self.publicKey.utf8.count <= Self.maximumPEMLength else {
            throw .invalidPublicKey("The public key is too long to be an RSA key of at most 4096 bits.")
        }
        let key = try crypto.deviceKey(pem: self.publicKey)
        return Parsed(key: key, algorithm: algorithm, challengeID: self.challengeID, signature: Self.decodeSignature(self.signature))
    }

    /// Parses the proof, opens the challenge ID and checks the signature for `purpose`.
    /// Does not spend the challenge: the caller's repository does, atomically with the change
    /// (and finds it there when it was spent before).
    /// - Throws: `422` for malformed keys or algorithms, `401 invalid_signature` for every failed proof.
    func verify(for purpose: SignaturePurpose, in environment: IdentityEnvironment) async throws -> (key: any DeviceKey, challenge: Challenge) {
        let parsed = try self.parse(crypto: environment.crypto)
        let challenge = try await Self.check(
            parsed.signature, by: parsed.key, algorithm: parsed.algorithm, challengeID: parsed.challengeID, for: purpose, in: environment)
        return (parsed.key, challenge)
    }

    /// Opens the challenge ID and checks that `signature` signs it for `purpose` with `key`.
    /// - Throws: `401 invalid_signature` for an unknown or expired challenge and a signature that is
    ///   missing, not base64 or not valid.
    static func check(
        _ signature: [UInt8]?, by key: any DeviceKey, algorithm: SignatureAlgorithm, challengeID: String,
        for purpose: SignaturePurpose, in environment: IdentityEnvironment
    ) async throws -> Challenge {
        let seal = ChallengeSeal(secret: try await environment.repository.challengeSecret(), crypto: environment.crypto)
        guard let challenge = seal.open(challengeID) else {
            throw SoomError.invalidSignature("Unknown challenge: ask POST /v1/auth/challenges for one.")
        }
        guard challenge.isUsable(at: environment.now()) else {
            throw SoomError.invalidSignature("The challenge has expired; request a new one.")
        }
        guard let signature, !signature.isEmpty else {
            throw SoomError.invalidSignature("The signature is not valid base64.")
        }
        guard key.verifies(signature, message: purpose.message(nonce: challenge.nonce), algorithm: algorithm) else {
            throw SoomError.invalidSignature("The signature does not match this key, challenge and purpose (\(purpose.rawValue)).")
        }
        return challenge
    }

    /// The signature's bytes, or nil when it is too long or not base64 (a failed proof, not an input error).
    static func decodeSignature(_ text: String) -> [UInt8]? {
        text.utf8.count <= Self.maximumSignatureLength ? Data(base64Encoded: text).map { [UInt8]($0) } : nil
    }

    /// The contract's algorithm, or `422 validation_failed` naming the accepted ones.
    static func parseAlgorithm(_ text: String) throws(SoomError) -> SignatureAlgorithm {
        guard let algorithm = SignatureAlgorithm(rawValue: text) else {
            let accepted = SignatureAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")
            throw .validationFailed(field: "algorithm", "algorithm must be one of: \(accepted).")
        }
        return algorithm
    }
}
