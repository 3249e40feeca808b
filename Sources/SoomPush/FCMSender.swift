import AsyncHTTPClient
import Foundation
import JWTKit
import Logging
import NIOCore
import SoomDomain

/// A Firebase service account (`SOOM_FCM_CREDENTIALS`, the JSON file Firebase's console gives):
/// the project, the account's e-mail and RSA private key, and where tokens are made.
public struct FCMCredentials: Sendable, Decodable {
    public let projectID: String
    public let clientEmail: String
    public let privateKey: String
    public let tokenURI: String

    enum CodingKeys: String, CodingKey {
        case projectID = "project_id"
        case clientEmail = "client_email"
        case privateKey = "private_key"
        case tokenURI = "token_uri"
    }
}

/// The OAuth 2 access token FCM wants (the service-account flow, RFC 7523): a JWT signed with the
/// account's key (RS256) exchanged at the token endpoint, kept until five minutes before it
/// expires; callers at the same moment share one exchange.
public actor FCMAccessToken {
    let credentials: FCMCredentials
    let tokenURL: String
    let client: HTTPClient
    private var keys: JWTKeyCollection?
    private var current: (token: String, until: Date)?
    private var fetching: Task<(token: String, until: Date), any Error>?

    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    struct Unavailable: Error {}

    struct Assertion: JWTPayload {
        let iss: IssuerClaim
        let scope: String
        let aud: AudienceClaim
        let iat: IssuedAtClaim
        let exp: ExpirationClaim

        func verify(using algorithm: some JWTAlgorithm) throws { try self.exp.verifyNotExpired() }
    }

    /// - Parameter tokenURL: the token endpoint (the credentials' `token_uri` unless overridden, for
    ///   tests). The key is read on first use (`PushConfiguration` has checked it at start).
    public init(credentials: FCMCredentials, tokenURL: String? = nil, client: HTTPClient) {
        self.credentials = credentials
        self.tokenURL = tokenURL ?? credentials.tokenURI
        self.client = client
    }

    /// A valid access token, exchanged anew when the kept one is within five minutes of expiring.
    public func token(now: Date = Date()) async throws -> String {
        if let current, current.until > now.addingTimeInterval(300) { return current.token }
        if let fetching { return try await fetching.value.token }
        let task = Task { try await self.exchange(now: now) }
        self.fetching = task
        defer { self.fetching = nil }
        let fresh = try await task.value
        self.current = fresh
        return fresh.token
    }

    /// Whether `pem` is an RSA private key.
    public static func isPrivateKey(pem: String) -> Bool {
        (try? Insecure.RSA.PrivateKey(pem: pem)) != nil
    }

    /// Forgets the kept token if it is `token` (FCM refused it); a newer one stays.
    public func invalidate(_ token: String) {
        if self.current?.token == token { self.current = nil }
    }

    private func signer() async throws -> JWTKeyCollection {
        if let keys { return keys }
        let keys = JWTKeyCollection()
        await keys.add(rsa: try Insecure.RSA.PrivateKey(pem: self.credentials.privateKey), digestAlgorithm: .sha256)
        self.keys = keys
        return keys
    }

    private func exchange(now: Date) async throws -> (token: String, until: Date) {
        let assertion = try await self.signer().sign(
            Assertion(
                iss: .init(value: self.credentials.clientEmail), scope: Self.scope, aud: .init(value: self.tokenURL),
                iat: .init(value: now), exp: .init(value: now.addingTimeInterval(3600))))
        var request = HTTPClientRequest(url: self.tokenURL)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"))
        let response = try await self.client.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 64 * 1024)
        struct Answer: Decodable {
            let accessToken: String
            let expiresIn: Double
            enum CodingKeys: String, CodingKey {
                case accessToken = "access_token"
                case expiresIn = "expires_in"
            }
        }
        guard response.status == .ok, let answer = try? JSONDecoder().decode(Answer.self, from: Data(body.readableBytesView)) else {
            throw Unavailable()
        }
        return (answer.accessToken, now.addingTimeInterval(answer.expiresIn))
    }
}

/// Sends a notification to an Android (or other FCM) device through FCM HTTP v1: a data message
/// carrying the `Notification` JSON (`data.notification`) for the app to show, `collapse_key` the
/// notification's id (a message sent again replaces the first), `high` priority for moderation
/// notices, a day's TTL. The content is not end-to-end encrypted: Google can read it (PRIVACY.md).
public struct FCMSender: PushSender {
    let client: HTTPClient
    let tokens: FCMAccessToken
    let endpoint: String
    let encode: @Sendable (AccountNotification) -> [UInt8]
    let timeout: Duration
    let logger: Logger

    /// - Parameter endpoint: FCM's base URL (`https://fcm.googleapis.com` unless overridden, for tests).
    public init(
        client: HTTPClient, tokens: FCMAccessToken, endpoint: String = "https://fcm.googleapis.com", timeout: Duration = .seconds(10),
        logger: Logger, encode: @escaping @Sendable (AccountNotification) -> [UInt8]
    ) {
        self.client = client
        self.tokens = tokens
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        self.encode = encode
        self.timeout = timeout
        self.logger = logger
    }

    public func send(_ notification: AccountNotification, to address: PushAddress) async -> PushOutcome {
        guard case .fcm(let token) = address else { return .failed }
        do {
            let access = try await self.tokens.token()
            let project = self.tokens.credentials.projectID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""
            var request = HTTPClientRequest(url: "\(self.endpoint)/v1/projects/\(project)/messages:send")
            request.method = .POST
            request.headers.add(name: "Authorization", value: "Bearer \(access)")
            request.headers.add(name: "Content-Type", value: "application/json")
            let message: [String: Any] = [
                "message": [
                    "token": token,
                    "data": ["notification": String(decoding: self.encode(notification), as: UTF8.self)],
                    "android": [
                        "priority": PushPayload.isModeration(notification.type) ? "high" : "normal",
                        "collapse_key": PushPayload.topic(notification.id), "ttl": "\(WebPushSender.timeToLive)s",
                    ],
                ] as [String: Any]
            ]
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: message)))
            let response = try await self.client.execute(request, timeout: TimeAmount(self.timeout))
            let body = String(buffer: try await response.body.collect(upTo: 64 * 1024))
            switch response.status.code {
            case 401:
                // The access token was refused: exchange a new one for the next attempt.
                await self.tokens.invalidate(access)
                return .retry(after: nil)
            case 400 where body.contains("registration token") || body.contains("UNREGISTERED"), 403 where body.contains("SENDER_ID_MISMATCH"):
                return .gone
            default:
                return PushPayload.outcome(status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"))
            }
        } catch {
            self.logger.debug("FCM push not delivered; will retry", metadata: ["reason": "\(type(of: error))"])
            return .retry(after: nil)
        }
    }
}
