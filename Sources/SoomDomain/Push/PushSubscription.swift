import Foundation

/// The three ways a notification can reach a device that is not looking.
public enum PushKind: String, Sendable, Equatable, CaseIterable {
    /// A browser's push service (RFC 8030), payload encrypted for the browser (RFC 8291).
    case webPush = "webpush"
    /// Firebase Cloud Messaging, HTTP v1.
    case fcm
    /// Apple Push Notification service, HTTP/2 with token-based auth.
    case apns
}

/// Where a subscription sends: a Web Push endpoint with the browser's keys, or a native device token.
/// Secrets: never returned by the API, never logged.
public enum PushAddress: Sendable, Equatable {
    /// `p256dh`: the browser's P-256 public key, 65 bytes uncompressed; `auth`: its 16-byte secret.
    case webPush(endpoint: String, p256dh: [UInt8], auth: [UInt8])
    case fcm(token: String)
    case apns(token: String)

    public var kind: PushKind {
        switch self {
        case .webPush: .webPush
        case .fcm: .fcm
        case .apns: .apns
        }
    }
}

/// The contract's `PushSubscription`: what the API shows of a subscription (never its address).
public struct PushSubscription: Sendable, Equatable {
    public let id: UUID
    public let kind: PushKind
    public let createdAt: Date

    public init(id: UUID, kind: PushKind, createdAt: Date) {
        self.id = id
        self.kind = kind
        self.createdAt = createdAt
    }
}
