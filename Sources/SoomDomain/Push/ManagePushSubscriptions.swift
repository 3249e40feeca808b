import Foundation

/// The caller's push subscriptions: add (checked by the policy first), list, remove; and the
/// server's VAPID public key for browsers to subscribe with.
public struct ManagePushSubscriptions: Sendable {
    let repository: any PushRepository
    let policy: any PushAddressPolicy
    let now: @Sendable () -> Date

    /// The most subscriptions an account may have (its devices and browsers).
    public static let limit = 5

    public init(repository: any PushRepository, policy: any PushAddressPolicy, now: @escaping @Sendable () -> Date = Date.init) {
        self.repository = repository
        self.policy = policy
        self.now = now
    }

    /// - Returns: the subscription, and whether it is new (`201`) or the one already saved for
    ///   the same endpoint or token (`200`).
    /// - Throws: `422 validation_failed` from the policy; `422 push_subscription_limit` when the
    ///   account already has five others.
    public func subscribe(account: UUID, _ address: PushAddress) async throws -> (subscription: PushSubscription, created: Bool) {
        guard self.policy.offered.contains(address.kind) else {
            throw SoomError.validationFailed(field: "kind", "This server does not send \(address.kind.rawValue) notifications.")
        }
        try await self.policy.check(address)
        guard let saved = try await self.repository.subscribe(account: account, address, limit: Self.limit, at: self.now()) else {
            throw SoomError(
                .validation, code: "push_subscription_limit",
                message: "An account can have at most \(Self.limit) push subscriptions; remove one first.")
        }
        return saved
    }

    public func list(account: UUID) async throws -> [PushSubscription] {
        try await self.repository.subscriptions(of: account)
    }

    /// - Throws: `404 not_found` when the subscription does not exist or is someone else's.
    public func unsubscribe(account: UUID, id: UUID) async throws {
        guard try await self.repository.unsubscribe(account: account, id: id) else {
            throw SoomError(.notFound, code: "not_found", message: "There is no such push subscription.")
        }
    }
}
