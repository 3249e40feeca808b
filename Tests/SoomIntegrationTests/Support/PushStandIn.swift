import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdHTTP2
import HummingbirdTLS
import JWTKit
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import SoomDomain
import SwiftASN1
import Synchronization
import Testing
import X509
import _CryptoExtras

/// A local stand-in for the push services over HTTPS with a certificate of its own CA: FCM (an
/// OAuth 2 token endpoint that verifies the service account's RS256 assertion, and the HTTP v1
/// send endpoint that wants its token), APNs (HTTP/2, an ES256 provider token by the team's key),
/// and a browser's push service (RFC 8030); HTTP/2 where the client offers it (ALPN), else HTTP/1.1: each subscription it hands out has a browser key pair and auth secret, and every
/// message it receives is checked as a real service and browser would — the VAPID token verified
/// with the key it names (ES256, `aud` the service's origin, `exp` within 24 hours, a `sub`) and
/// the payload decrypted with this file's own RFC 8291 decryptor (checked against the RFC's
/// example). It answers `201` unless told otherwise per subscription (a status, `Retry-After`, a
/// delay before answering). A message whose `Topic` it already holds replaces it, as RFC 8030
/// §5.4 says a service does with a message not yet delivered.
final class PushStandIn: Sendable {
    struct Received: Sendable {
        let subscription: String
        let payload: [String: any Sendable]?
        let vapidValid: Bool
        let audience: String?
        let ttl: String?
        let urgency: String?
        let topic: String?
        let contentEncoding: String?
        let answered: Int
    }

    struct Answer: Sendable {
        var status: Int = 201
        var retryAfter: String?
        var delay: Duration = .zero
        var body: String?
    }

    struct Browser: Sendable {
        let key: P256.KeyAgreement.PrivateKey
        let auth: [UInt8]
    }

    private struct State {
        var browsers: [String: Browser] = [:]
        var scripts: [String: [Answer]] = [:]
        var received: [Received] = []
        var accessTokens: Set<String> = []
        var assertions = 0
        var fcm: [FCMMessage] = []
        var apns: [APNsMessage] = []
    }

    /// A message APNs's endpoint accepted or refused.
    struct APNsMessage: Sendable {
        let device: String
        let http2: Bool
        let tokenValid: Bool
        let headers: [String: String]
        let alert: [String: any Sendable]?
        let payload: [String: any Sendable]?
        let answered: Int
    }

    /// The team's APNs key (a `.p8` file's P-256 key), its id and the team.
    let apnsKey = P256.Signing.PrivateKey()
    static let apnsKeyID = "ABC123DEFG"
    static let teamID = "DEF123GHIJ"
    static let bundleID = "app.soom.ios"

    /// A message FCM's send endpoint accepted or refused.
    struct FCMMessage: Sendable {
        let token: String
        let payload: [String: any Sendable]?
        let collapseKey: String?
        let priority: String?
        let answered: Int
    }

    /// The service account FCM knows: its JSON for `PushConfiguration.fcmCredentials`.
    let serviceAccountKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let project = "soom-test"
    static let clientEmail = "push@soom-test.iam.gserviceaccount.com"

    private let state = Mutex(State())
    let port: Int
    /// The CA's certificate (PEM), to trust with `SOOM_PUSH_CA_FILE`.
    let caFile: String
    var origin: String { "https://localhost:\(self.port)" }
    private let task: Task<Void, any Error>
    private let group: ServiceGroup

    private init(port: Int, caFile: String, task: Task<Void, any Error>, group: ServiceGroup) {
        self.port = port
        self.caFile = caFile
        self.task = task
        self.group = group
    }

    /// Starts one on a free port; `stop()` it when done.
    static func start() async throws -> PushStandIn {
        let (caPEM, leafPEM, leafKeyPEM) = try Self.certificates()
        let caFile = FileManager.default.temporaryDirectory.appendingPathComponent("soom-push-ca-\(UUID().uuidString).pem").path
        try caPEM.write(toFile: caFile, atomically: true, encoding: .utf8)
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(leafPEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(leafKeyPEM.utf8), format: .pem)))
        let holder = Holder()
        let router = Router()
        router.post("/token") { request, _ -> Response in
            guard let standIn = holder.standIn else { return Response(status: .serviceUnavailable) }
            let body = String(buffer: try await request.body.collect(upTo: 16384))
            return try await standIn.token(form: body)
        }
        router.post("/v1/projects/{project}/messages:send") { request, context -> Response in
            guard let standIn = holder.standIn else { return Response(status: .serviceUnavailable) }
            let body = try await request.body.collect(upTo: 16384)
            return standIn.fcmSend(
                project: context.parameters.get("project") ?? "", authorization: request.headers[.authorization], body: Data(body.readableBytesView))
        }
        router.post("/3/device/{token}") { request, context -> Response in
            guard let standIn = holder.standIn else { return Response(status: .serviceUnavailable) }
            let body = try await request.body.collect(upTo: 8192)
            return await standIn.apnsSend(
                device: context.parameters.get("token") ?? "", head: request.head, body: Data(body.readableBytesView))
        }
        router.post("/push/{id}") { request, context -> Response in
            guard let standIn = holder.standIn else { return Response(status: .serviceUnavailable) }
            let id = context.parameters.get("id") ?? ""
            let body = try await request.body.collect(upTo: 8192)
            return try await standIn.receive(id: id, headers: request.headers, body: Array(body.readableBytesView))
        }
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, server: try .http2Upgrade(tlsConfiguration: tls),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in portSink.yield(channel.localAddress?.port ?? 0) })
        let group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "push-stand-in")))
        let task = Task { try await group.run() }
        var port = 0
        for await value in ports {
            port = value
            break
        }
        let standIn = PushStandIn(port: port, caFile: caFile, task: task, group: group)
        holder.set(standIn)
        return standIn
    }

    func stop() async {
        await self.group.triggerGracefulShutdown()
        _ = await self.task.result
        try? FileManager.default.removeItem(atPath: self.caFile)
    }

    private final class Holder: Sendable {
        private let value = Mutex<PushStandIn?>(nil)
        var standIn: PushStandIn? { self.value.withLock { $0 } }
        func set(_ standIn: PushStandIn) { self.value.withLock { $0 = standIn } }
    }

    /// A new browser subscription: the JSON body for `POST /v1/me/push-subscriptions`, and its id here.
    func subscribe(answers: [Answer] = []) -> (id: String, body: [String: Any]) {
        let id = UUID().uuidString.lowercased()
        let browser = Browser(key: P256.KeyAgreement.PrivateKey(), auth: (0..<16).map { _ in UInt8.random(in: 0...255) })
        self.state.withLock {
            $0.browsers[id] = browser
            $0.scripts[id] = answers
        }
        let body: [String: Any] = [
            "kind": "webpush", "endpoint": "\(self.origin)/push/\(id)",
            "keys": ["p256dh": Base64URL.encode(Array(browser.key.publicKey.x963Representation)), "auth": Base64URL.encode(browser.auth)],
        ]
        return (id, body)
    }

    var received: [Received] { self.state.withLock { $0.received } }
    var fcmMessages: [FCMMessage] { self.state.withLock { $0.fcm } }
    var apnsMessages: [APNsMessage] { self.state.withLock { $0.apns } }

    /// Answers scripted per APNs device token, then `200`.
    func script(apnsDevice: String, _ answers: [Answer]) { self.state.withLock { $0.scripts["apns:" + apnsDevice] = answers } }

    /// APNs's `POST /3/device/<token>`: the provider token must verify with the team's key and name the key and team.
    private func apnsSend(device: String, head: HTTPRequest, body: Data) async -> Response {
        struct Claims: JWTPayload {
            let iss: IssuerClaim
            let iat: IssuedAtClaim
            func verify(using algorithm: some JWTAlgorithm) throws {}
        }
        var tokenValid = false
        if let authorization = head.headerFields[.authorization], authorization.hasPrefix("bearer ") {
            let token = String(authorization.dropFirst("bearer ".count))
            let keys = JWTKeyCollection()
            if let key = try? ES256PublicKey(backing: self.apnsKey.publicKey) {
                await keys.add(ecdsa: key, kid: JWKIdentifier(string: Self.apnsKeyID))
                if let claims = try? await keys.verify(token, as: Claims.self), let header = try? JWTHeaderKid.kid(of: token) {
                    tokenValid = claims.iss.value == Self.teamID && header == Self.apnsKeyID && claims.iat.value.timeIntervalSinceNow > -3600
                }
            }
        }
        var headers: [String: String] = [:]
        for name in ["apns-topic", "apns-push-type", "apns-priority", "apns-collapse-id", "apns-expiration"] {
            headers[name] = head.headerFields[HTTPField.Name(name)!]
        }
        let object = (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:]
        let alert = ((object["aps"] as? [String: Any])?["alert"] as? [String: Any])?.mapValues { SendableJSON.wrap($0) }
        let payload = (object["notification"] as? [String: Any])?.mapValues { SendableJSON.wrap($0) }
        let answer = self.state.withLock { state -> Answer in
            var script = state.scripts["apns:" + device] ?? []
            let answer = script.isEmpty ? Answer(status: 200) : script.removeFirst()
            state.scripts["apns:" + device] = script
            state.apns.append(
                APNsMessage(
                    device: device, http2: head.scheme != nil, tokenValid: tokenValid, headers: headers, alert: alert, payload: payload,
                    answered: tokenValid ? answer.status : 403))
            return answer
        }
        guard tokenValid else {
            return Response(status: .forbidden, body: .init(byteBuffer: ByteBuffer(string: #"{"reason":"InvalidProviderToken"}"#)))
        }
        var response = Response(status: HTTPResponse.Status(code: answer.status))
        if let errorBody = answer.body { response.body = .init(byteBuffer: ByteBuffer(string: errorBody)) }
        return response
    }
    var assertionsVerified: Int { self.state.withLock { $0.assertions } }

    /// The service account's JSON, with this stand-in as its token endpoint.
    var serviceAccountJSON: String {
        let key = self.serviceAccountKey.pemRepresentation.replacingOccurrences(of: "\n", with: "\\n")
        return
            #"{"type":"service_account","project_id":"\#(Self.project)","client_email":"\#(Self.clientEmail)","private_key":"\#(key)","token_uri":"\#(self.origin)/token"}"#
    }

    /// Answers scripted per FCM token (a status and a body), then `200`.
    func script(fcmToken: String, _ answers: [Answer]) { self.state.withLock { $0.scripts["fcm:" + fcmToken] = answers } }

    /// The token endpoint: an RS256 assertion by the service account, for FCM's scope and this endpoint.
    private func token(form: String) async throws -> Response {
        var fields: [String: String] = [:]
        for pair in form.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        struct Assertion: JWTPayload {
            let iss: IssuerClaim
            let scope: String
            let aud: AudienceClaim
            let exp: ExpirationClaim
            func verify(using algorithm: some JWTAlgorithm) throws { try self.exp.verifyNotExpired() }
        }
        let keys = JWTKeyCollection()
        await keys.add(rsa: try Insecure.RSA.PublicKey(pem: self.serviceAccountKey.publicKey.pemRepresentation), digestAlgorithm: .sha256)
        guard fields["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = fields["assertion"],
            let claims = try? await keys.verify(assertion, as: Assertion.self), claims.iss.value == Self.clientEmail,
            claims.aud.value == ["\(self.origin)/token"], claims.scope == "https://www.googleapis.com/auth/firebase.messaging"
        else { return Response(status: .badRequest) }
        let token = "ya29.\(UUID().uuidString)"
        self.state.withLock {
            $0.accessTokens.insert(token)
            $0.assertions += 1
        }
        let body = #"{"access_token":"\#(token)","expires_in":3600,"token_type":"Bearer"}"#
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// FCM HTTP v1's send: the bearer token must be one the token endpoint issued.
    private func fcmSend(project: String, authorization: String?, body: Data) -> Response {
        let valid = self.state.withLock { state in authorization.map { state.accessTokens.contains(String($0.dropFirst("Bearer ".count))) } ?? false }
        guard project == Self.project, valid else { return Response(status: .unauthorized) }
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any], let message = object["message"] as? [String: Any],
            let token = message["token"] as? String
        else { return Response(status: .badRequest) }
        let android = message["android"] as? [String: Any]
        let data = (message["data"] as? [String: String])?["notification"]
        let payload = data.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }?.mapValues { SendableJSON.wrap($0) }
        let answer = self.state.withLock { state -> Answer in
            var script = state.scripts["fcm:" + token] ?? []
            let answer = script.isEmpty ? Answer(status: 200) : script.removeFirst()
            state.scripts["fcm:" + token] = script
            state.fcm.append(
                FCMMessage(
                    token: token, payload: payload, collapseKey: android?["collapse_key"] as? String, priority: android?["priority"] as? String,
                    answered: answer.status))
            return answer
        }
        var response = Response(status: HTTPResponse.Status(code: answer.status))
        if let retryAfter = answer.retryAfter { response.headers[HTTPField.Name("Retry-After")!] = retryAfter }
        if let errorBody = answer.body { response.body = .init(byteBuffer: ByteBuffer(string: errorBody)) }
        return response
    }

    /// Waits until `count` messages were accepted (`2xx`) for `subscription`, or `timeout` passes.
    func waitForDelivered(_ count: Int, to subscription: String, timeout: Duration = .seconds(10)) async throws -> [Received] {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        func delivered() -> [Received] { self.received.filter { $0.subscription == subscription && (200..<300).contains($0.answered) } }
        while delivered().count < count, clock.now < deadline { try await Task.sleep(for: .milliseconds(25)) }
        return delivered()
    }

    private func receive(id: String, headers: HTTPFields, body: [UInt8]) async throws -> Response {
        let (browser, answer) = self.state.withLock { state -> (Browser?, Answer) in
            var script = state.scripts[id] ?? []
            let answer = script.isEmpty ? Answer() : script.removeFirst()
            state.scripts[id] = script
            return (state.browsers[id], answer)
        }
        guard let browser else { return Response(status: .notFound) }
        let authorization = headers[.authorization] ?? ""
        let (valid, audience) = await Self.verifyVAPID(authorization, origin: self.origin)
        var payload: [String: any Sendable]?
        if headers[HTTPField.Name("Content-Encoding")!] == "aes128gcm",
            let plain = try? WebPushDecryption.decrypt(body, browser.key, auth: browser.auth),
            let object = try? JSONSerialization.jsonObject(with: Data(plain)) as? [String: Any]
        {
            payload = object.mapValues { SendableJSON.wrap($0) }
        }
        if answer.delay > .zero { try await Task.sleep(for: answer.delay) }
        let received = Received(
            subscription: id, payload: payload, vapidValid: valid, audience: audience, ttl: headers[HTTPField.Name("TTL")!],
            urgency: headers[HTTPField.Name("Urgency")!], topic: headers[HTTPField.Name("Topic")!],
            contentEncoding: headers[HTTPField.Name("Content-Encoding")!], answered: answer.status)
        self.state.withLock { $0.received.append(received) }
        var response = Response(status: HTTPResponse.Status(code: answer.status))
        if let retryAfter = answer.retryAfter { response.headers[HTTPField.Name("Retry-After")!] = retryAfter }
        return response
    }

    /// `vapid t=<JWT>, k=<key>`: the JWT must verify with `k`, name this service's origin, expire
    /// within 24 hours, and carry a subject. Returns whether it did, and the audience it named.
    static func verifyVAPID(_ header: String, origin: String) async -> (Bool, String?) {
        guard header.hasPrefix("vapid ") else { return (false, nil) }
        var fields: [String: String] = [:]
        for part in header.dropFirst(6).split(separator: ",") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
        }
        struct Claims: JWTPayload {
            let aud: AudienceClaim
            let exp: ExpirationClaim
            let sub: SubjectClaim
            func verify(using algorithm: some JWTAlgorithm) throws { try self.exp.verifyNotExpired() }
        }
        guard let token = fields["t"], let key = fields["k"].flatMap(Base64URL.decode),
            let publicKey = try? P256.Signing.PublicKey(x963Representation: key)
        else { return (false, nil) }
        let keys = JWTKeyCollection()
        guard let ecdsa = try? ES256PublicKey(backing: publicKey) else { return (false, nil) }
        await keys.add(ecdsa: ecdsa)
        guard let claims = try? await keys.verify(token, as: Claims.self) else { return (false, nil) }
        let audience = claims.aud.value.first
        let valid = audience == origin && claims.exp.value.timeIntervalSinceNow <= 24 * 3600 && !claims.sub.value.isEmpty
        return (valid, audience)
    }

    /// A CA, and a certificate for `localhost` and 127.0.0.1 signed by it; all PEM.
    static func certificates() throws -> (ca: String, leaf: String, leafKey: String) {
        let caKey = P256.Signing.PrivateKey()
        let leafKey = P256.Signing.PrivateKey()
        let now = Date()
        let caName = try DistinguishedName { CommonName("Soom test push CA") }
        let ca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey), notValidBefore: now - 3600, notValidAfter: now + 86400,
            issuer: caName, subject: caName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(caKey))
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey), notValidBefore: now - 3600,
            notValidAfter: now + 86400, issuer: caName, subject: try DistinguishedName { CommonName("localhost") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
                try ExtendedKeyUsage([.serverAuth])
            },
            issuerPrivateKey: .init(caKey))
        return (try ca.serializeAsPEM().pemString, try leaf.serializeAsPEM().pemString, leafKey.pemRepresentation)
    }
}

/// RFC 8291 decryption, written here apart from the server's encryption so that the two check
/// each other (and this one is checked against the RFC's example in `PushStandInTests`).
enum WebPushDecryption {
    struct Malformed: Error {}

    static func decrypt(_ body: [UInt8], _ browserKey: P256.KeyAgreement.PrivateKey, auth: [UInt8]) throws -> [UInt8] {
        guard body.count > 21 else { throw Malformed() }
        let salt = Array(body[0..<16])
        let recordSize = body[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let idLength = Int(body[20])
        guard idLength == 65, body.count > 21 + idLength + 16, recordSize >= body.count - 21 - idLength else { throw Malformed() }
        let senderPublic = Array(body[21..<(21 + idLength)])
        let ciphertext = Array(body[(21 + idLength)...])
        let shared = try browserKey.sharedSecretFromKeyAgreement(with: P256.KeyAgreement.PublicKey(x963Representation: senderPublic))
        let browserPublic = Array(browserKey.publicKey.x963Representation)
        let secret = shared.withUnsafeBytes { Array($0) }
        // Extract and expand by hand with HMAC, step by step as the RFC writes them.
        func hmac(_ key: [UInt8], _ data: [UInt8]) -> [UInt8] {
            Array(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: key)))
        }
        let prkKey = hmac(auth, secret)
        let ikm = Array(hmac(prkKey, Array("WebPush: info".utf8) + [0] + browserPublic + senderPublic + [1]).prefix(32))
        let prk = hmac(salt, ikm)
        let cek = Array(hmac(prk, Array("Content-Encoding: aes128gcm".utf8) + [0, 1]).prefix(16))
        let nonce = Array(hmac(prk, Array("Content-Encoding: nonce".utf8) + [0, 1]).prefix(12))
        let box = try AES.GCM.SealedBox(
            nonce: AES.GCM.Nonce(data: nonce), ciphertext: ciphertext.dropLast(16), tag: ciphertext.suffix(16))
        var plain = Array(try AES.GCM.open(box, using: SymmetricKey(data: cek)))
        // Padding (zeros) and the last record's delimiter 0x02.
        while plain.last == 0 { plain.removeLast() }
        guard plain.last == 2 else { throw Malformed() }
        plain.removeLast()
        return plain
    }
}

/// The `kid` in a JWT's header.
enum JWTHeaderKid {
    struct Missing: Error {}

    static func kid(of token: String) throws -> String {
        guard let part = token.split(separator: ".").first, let bytes = Base64URL.decode(String(part)),
            let header = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any], let kid = header["kid"] as? String
        else { throw Missing() }
        return kid
    }
}
