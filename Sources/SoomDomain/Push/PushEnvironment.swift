import Foundation

/// What the push routes need: the subscriptions' use case, and the server's VAPID public key
/// (base64url, uncompressed P-256 point) for browsers to subscribe with.
public struct PushEnvironment: Sendable {
    public let subscriptions: ManagePushSubscriptions
    public let vapidPublicKey: @Sendable () async throws -> String

    public init(subscriptions: ManagePushSubscriptions, vapidPublicKey: @escaping @Sendable () async throws -> String) {
        self.subscriptions = subscriptions
        self.vapidPublicKey = vapidPublicKey
    }
}
