import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import SoomDomain

/// Sends a notification through a browser's push service (RFC 8030): the `Notification` JSON,
/// encrypted for the browser (RFC 8291), with VAPID (RFC 8292).
///
/// Headers: `TTL` (a day: a notification older than that is not worth showing), `Urgency`
/// (`high` for moderation notices, else `normal`), `Topic` (the notification's id: a message sent
/// again after an instance died mid-send replaces the first at the push service instead of
/// arriving twice), `Content-Encoding: aes128gcm`, `Authorization: vapid t=…, k=…`.
public struct WebPushSender: PushSender {
    let client: HTTPClient
    let vapid: VAPIDKeeper
    let policy: PushEndpointPolicy
    let encode: @Sendable (AccountNotification) -> [UInt8]
    let logger: Logger
    let timeout: Duration

    /// - Parameters:
    ///   - encode: the notification as the contract's JSON.
    ///   - timeout: how long a send may take before it is retried later.
    public init(
        client: HTTPClient, vapid: VAPIDKeeper, policy: PushEndpointPolicy, logger: Logger, timeout: Duration = .seconds(10),
        encode: @escaping @Sendable (AccountNotification) -> [UInt8]
    ) {
        self.timeout = timeout
        self.client = client
        self.vapid = vapid
        self.policy = policy
        self.encode = encode
        self.logger = logger
    }

    public static let timeToLive = 24 * 3600

    public func send(_ notification: AccountNotification, to address: PushAddress) async -> PushOutcome {
        guard case .webPush(let endpoint, let p256dh, let auth) = address else { return .failed }
        // Checked again now: a name may resolve elsewhere than when it was subscribed.
        let origin: String
        switch await self.policy.recheck(endpoint) {
        case .allowed(let allowed): origin = allowed
        case .unresolved: return .retry(after: nil)
        case .refused:
            self.logger.debug("push endpoint no longer allowed; subscription dropped")
            return .gone
        }
        do {
            let body = try WebPushEncryption.encrypt(self.encode(notification), p256dh: p256dh, auth: auth)
            var request = HTTPClientRequest(url: endpoint)
            request.method = .POST
            request.headers.add(name: "TTL", value: String(Self.timeToLive))
            request.headers.add(name: "Urgency", value: PushPayload.isModeration(notification.type) ? "high" : "normal")
            request.headers.add(name: "Topic", value: PushPayload.topic(notification.id))
            request.headers.add(name: "Content-Encoding", value: "aes128gcm")
            request.headers.add(name: "Content-Type", value: "application/octet-stream")
            request.headers.add(name: "Authorization", value: try await self.vapid.current().authorization(for: origin))
            request.body = .bytes(ByteBuffer(bytes: body))
            let response = try await self.client.execute(request, timeout: TimeAmount(self.timeout))
            // The body is not needed, but must be read for the connection to be reused.
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return PushPayload.outcome(status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"))
        } catch is WebPushEncryption.PayloadTooLarge {
            return .failed
        } catch {
            // A timeout, a refused or dropped connection, a TLS failure: the service may be back later.
            self.logger.debug("push not delivered; will retry", metadata: ["reason": "\(type(of: error))"])
            return .retry(after: nil)
        }
    }
}

/// What every sender shares: the collapse key, urgency, and how a push service's answer maps to an outcome.
public enum PushPayload {
    /// The notification's id as 32 hexadecimal digits: a Web Push `Topic` (at most 32 base64url
    /// characters), an APNs `apns-collapse-id`, an FCM collapse key.
    public static func topic(_ id: UUID) -> String {
        id.uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// Moderation notices are urgent; the rest can wait for a phone to wake.
    public static func isModeration(_ type: NotificationType) -> Bool {
        type == .cardHidden || type == .postingRestricted
    }

    /// `2xx` delivered; `404`/`410` gone; `429` and `5xx` retried (after `Retry-After`, in seconds
    /// or as an HTTP date); anything else refused for good.
    public static func outcome(status: Int, retryAfter: String?) -> PushOutcome {
        switch status {
        case 200..<300: return .delivered
        case 404, 410: return .gone
        case 429, 500..<600: return .retry(after: retryAfter.flatMap { Self.retryAfter($0) })
        default: return .failed
        }
    }

    /// `Retry-After` as a wait: seconds, or an HTTP date from now; nil when unreadable or past.
    static func retryAfter(_ value: String, now: Date = Date()) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 { return .seconds(min(seconds, 24 * 3600)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed), date > now else { return nil }
        return .seconds(min(date.timeIntervalSince(now), 24 * 3600))
    }
}
