import AsyncHTTPClient
import Crypto
import Foundation
import JWTKit
import Logging
import NIOCore
import SoomDomain

/// What APNs token-based auth needs: the `.p8` key Apple's developer site gives (`SOOM_APNS_KEY`,
/// a P-256 private key in PEM), its key id and the team id, the app's bundle id (`apns-topic`), and
/// the endpoint (production `https://api.push.apple.com`, or the sandbox's).
public struct APNsCredentials: Sendable {
    public let keyPEM: String
    public let keyID: String
    public let teamID: String
    public let topic: String
    public let endpoint: String

    public init(keyPEM: String, keyID: String, teamID: String, topic: String, endpoint: String = "https://api.push.apple.com") {
        self.keyPEM = keyPEM
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
    }

    /// Whether `keyPEM` is a P-256 private key.
    public var isValid: Bool { (try? P256.Signing.PrivateKey(pemRepresentation: self.keyPEM)) != nil }
}

/// The provider token APNs wants in `authorization: bearer …`: an ES256 JWT (`kid` the key id,
/// `iss` the team, `iat` now), made anew every 50 minutes (Apple refuses one older than an hour,
/// and one renewed more often than every 20 minutes) or when APNs says it expired.
actor APNsProviderToken {
    let credentials: APNsCredentials
    private var keys: JWTKeyCollection?
    private var current: (token: String, madeAt: Date)?

    init(credentials: APNsCredentials) {
        self.credentials = credentials
    }

    struct Claims: JWTPayload {
        let iss: IssuerClaim
        let iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    func token(now: Date = Date()) async throws -> String {
        if let current, now.timeIntervalSince(current.madeAt) < 50 * 60 { return current.token }
        let keys: JWTKeyCollection
        if let made = self.keys {
            keys = made
        } else {
            keys = JWTKeyCollection()
            await keys.add(
                ecdsa: try ES256PrivateKey(backing: P256.Signing.PrivateKey(pemRepresentation: self.credentials.keyPEM)),
                kid: JWKIdentifier(string: self.credentials.keyID))
            self.keys = keys
        }
        let token = try await keys.sign(
            Claims(iss: .init(value: self.credentials.teamID), iat: .init(value: now)), kid: JWKIdentifier(string: self.credentials.keyID))
        self.current = (token, now)
        return token
    }

    /// Forgets the kept token if it is `token` (APNs said it expired); a newer one stays.
    func invalidate(_ token: String) {
        if self.current?.token == token { self.current = nil }
    }
}

/// Sends a notification to an iPhone through APNs over HTTP/2 (async-http-client negotiates h2):
/// an alert the app localizes (`loc-key` the notification's type, `loc-args` the actor's
/// nickname when there is one) with `mutable-content`, and the `Notification` JSON beside `aps`
/// under `notification`; `apns-collapse-id` the notification's id, priority 10 for moderation
/// notices and 5 for the rest, a day's expiration.
public struct APNsSender: PushSender {
    let client: HTTPClient
    let tokens: APNsProviderToken
    let encode: @Sendable (AccountNotification) -> [UInt8]
    let timeout: Duration
    let logger: Logger

    public init(
        client: HTTPClient, credentials: APNsCredentials, timeout: Duration = .seconds(10), logger: Logger,
        encode: @escaping @Sendable (AccountNotification) -> [UInt8]
    ) {
        self.client = client
        self.tokens = APNsProviderToken(credentials: credentials)
        self.encode = encode
        self.timeout = timeout
        self.logger = logger
    }

    public func send(_ notification: AccountNotification, to address: PushAddress) async -> PushOutcome {
        guard case .apns(let device) = address else { return .failed }
        let credentials = self.tokens.credentials
        do {
            var request = HTTPClientRequest(url: "\(credentials.endpoint)/3/device/\(device)")
            request.method = .POST
            let providerToken = try await self.tokens.token()
            request.headers.add(name: "authorization", value: "bearer \(providerToken)")
            request.headers.add(name: "apns-topic", value: credentials.topic)
            request.headers.add(name: "apns-push-type", value: "alert")
            request.headers.add(name: "apns-priority", value: PushPayload.isModeration(notification.type) ? "10" : "5")
            request.headers.add(name: "apns-expiration", value: String(Int(Date().timeIntervalSince1970) + WebPushSender.timeToLive))
            request.headers.add(name: "apns-collapse-id", value: PushPayload.topic(notification.id))
            var alert: [String: Any] = ["loc-key": notification.type.rawValue]
            if let actor = notification.actor { alert["loc-args"] = [actor.nickname] }
            let json = try JSONSerialization.jsonObject(with: Data(self.encode(notification)))
            let body: [String: Any] = ["aps": ["alert": alert, "mutable-content": 1, "thread-id": notification.type.rawValue], "notification": json]
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
            let response = try await self.client.execute(request, timeout: TimeAmount(self.timeout))
            let answer = String(buffer: try await response.body.collect(upTo: 64 * 1024))
            switch response.status.code {
            case 403 where answer.contains("ExpiredProviderToken") || answer.contains("InvalidProviderToken"):
                await self.tokens.invalidate(providerToken)
                return .retry(after: nil)
            case 400 where answer.contains("BadDeviceToken") || answer.contains("DeviceTokenNotForTopic"):
                return .gone
            default:
                return PushPayload.outcome(status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"))
            }
        } catch {
            self.logger.debug("APNs push not delivered; will retry", metadata: ["reason": "\(type(of: error))"])
            return .retry(after: nil)
        }
    }
}
