import Foundation

/// Storage of push subscriptions and of the delivery queue. A notification queues one delivery
/// per subscription of its recipient in the transaction that makes it (migration 0027), so none
/// is lost and none delays the request that caused it.
public protocol PushRepository: Sendable {
    /// Saves a subscription for the account: the one already saved for the same address (the
    /// same endpoint or token) is kept, with its keys renewed, and moved to this account if
    /// another had it. `nil` when the account already has `limit` others.
    func subscribe(account: UUID, _ address: PushAddress, limit: Int, at now: Date) async throws -> (
        subscription: PushSubscription, created: Bool
    )?
    /// The account's subscriptions, oldest first.
    func subscriptions(of account: UUID) async throws -> [PushSubscription]
    /// Deletes one of the account's subscriptions (and its queued deliveries); false when it is not theirs.
    func unsubscribe(account: UUID, id: UUID) async throws -> Bool

    /// Claims up to `limit` deliveries that are due, for `lease`: until then no other claim takes
    /// them, and after it (an instance that died mid-send) any may. Safe with several instances.
    func claimDeliveries(limit: Int, lease: Duration) async throws -> [PushDelivery]
    /// Writes back what became of claimed deliveries, in one statement. A completion whose
    /// attempt is no longer the delivery's (claimed again after its lease) changes nothing.
    func complete(_ completions: [PushCompletion]) async throws
    /// How many deliveries are queued, and how long the oldest has waited (nil when none).
    func queue() async throws -> (depth: Int, oldest: Date?)

    /// The server's VAPID private key (a P-256 scalar, 32 bytes), made with `make` and stored
    /// by the first instance that asks; every later call, on any instance, gets the same one.
    func vapidKey(orMake make: @Sendable () -> [UInt8]) async throws -> [UInt8]
}
