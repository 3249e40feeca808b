import Foundation
import HummingbirdTesting
import SoomCrypto
import Testing

/// A device in tests: an RSA key pair that signs challenges like a phone would.
struct TestDevice: Sendable {
    /// Key generation is slow; each test has its own database, so tests can share a few keys.
    static let keys: [DevicePrivateKey] = (0..<6).map { _ in DevicePrivateKey(bits: 2048) }

    static var a: TestDevice { TestDevice(key: Self.keys[0]) }
    static var b: TestDevice { TestDevice(key: Self.keys[1]) }
    static var c: TestDevice { TestDevice(key: Self.keys[2]) }

    /// The keys of the first accounts `TestDatabase.makeAccounts` makes (distinct from `keys`).
    static let madeKeys: [DevicePrivateKey] = (0..<6).map { _ in DevicePrivateKey(bits: 2048) }

    /// The device of the `index`-th account that `makeAccounts` made (index < 6).
    static func made(_ index: Int) -> TestDevice { TestDevice(key: Self.madeKeys[index]) }

    let key: DevicePrivateKey
    var algorithm = "rsa-pss-sha256"
    var usePKCS1PEM = false

    var publicKeyPEM: String { self.usePKCS1PEM ? self.key.publicKeyPKCS1PEM : self.key.publicKeyPEM }

    /// A fresh challenge from the server: (challengeId, nonce).
    func challenge(_ client: some TestClientProtocol) async throws -> (id: String, nonce: String) {
        let response = try await client.send(.post, "/v1/auth/challenges")
        #expect(response.status == .created)
        let object = try response.object
        return (try #require(object["challengeId"] as? String), try #require(object["nonce"] as? String))
    }

    /// Signs `soom:v1:<purpose>:<nonce>` with this device's scheme.
    func sign(_ purpose: String, nonce: String) -> String {
        let scheme: SignatureScheme = self.algorithm == "rsa-pkcs1v15-sha256" ? .rsaPKCS1v15SHA256 : .rsaPSSSHA256
        return Data(self.key.signature(for: Array("soom:v1:\(purpose):\(nonce)".utf8), scheme: scheme)).base64EncodedString()
    }

    /// A complete proof body for `purpose` on a new challenge.
    func proof(_ client: some TestClientProtocol, purpose: String) async throws -> [String: Any] {
        let (id, nonce) = try await self.challenge(client)
        return ["publicKey": self.publicKeyPEM, "algorithm": self.algorithm, "challengeId": id, "signature": self.sign(purpose, nonce: nonce)]
    }

    /// Registers and returns the session token and the `account` object.
    @discardableResult
    func register(_ client: some TestClientProtocol, nickname: String? = nil) async throws -> (token: String, account: [String: Any]) {
        var body = try await self.proof(client, purpose: "register")
        if let nickname { body["nickname"] = nickname }
        let response = try await client.send(.post, "/v1/accounts", json: body)
        try #require(response.status == .created, "registration failed: \(String(buffer: response.body))")
        return try Self.signedIn(response)
    }

    /// Signs in and returns the session token and the `account` object.
    func signIn(_ client: some TestClientProtocol) async throws -> (token: String, account: [String: Any]) {
        let response = try await client.send(.post, "/v1/sessions", json: try await self.proof(client, purpose: "login"))
        try #require(response.status == .created, "sign-in failed: \(String(buffer: response.body))")
        return try Self.signedIn(response)
    }

    /// `{"algorithm","challengeId","signature"}` for `purpose` on a new challenge: what a signed-in
    /// device sends to issue a transfer code or to withdraw.
    func accountProof(_ client: some TestClientProtocol, purpose: String) async throws -> [String: Any] {
        var proof = try await self.proof(client, purpose: purpose)
        proof["publicKey"] = nil
        return proof
    }

    /// `DELETE /v1/me` signed by this device.
    func withdraw(_ client: some TestClientProtocol, token: String, reason: String = "") async throws -> TestResponse {
        var body = try await self.accountProof(client, purpose: "withdraw")
        body["reason"] = reason
        return try await client.send(.delete, "/v1/me", json: body, token: token)
    }

    /// `POST /v1/me/transfer-codes` signed by this device.
    func issueTransferCode(_ client: some TestClientProtocol, token: String) async throws -> TestResponse {
        try await client.send(.post, "/v1/me/transfer-codes", json: try await self.accountProof(client, purpose: "transfer-code"), token: token)
    }

    static func signedIn(_ response: TestResponse) throws -> (token: String, account: [String: Any]) {
        let object = try response.object
        let session = try #require(object["session"] as? [String: Any])
        return (try #require(session["token"] as? String), try #require(object["account"] as? [String: Any]))
    }
}
