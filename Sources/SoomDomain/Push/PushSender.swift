import Foundation

/// Sends one notification to one device through its push service. Implementations never throw:
/// every failure is an outcome (a refusal, a timeout, a network error is `.retry`).
public protocol PushSender: Sendable {
    func send(_ notification: AccountNotification, to address: PushAddress) async -> PushOutcome
}

/// Checks what a subscriber gives before it is stored: that its kind is offered, that a Web Push
/// endpoint is one the server may call (https, an allowed host, no private address), and that
/// keys and tokens have their shape.
public protocol PushAddressPolicy: Sendable {
    /// The kinds this server can send (a provider not configured is not offered).
    var offered: Set<PushKind> { get }
    /// - Throws: `422 validation_failed` naming the field at fault (`kind`, `endpoint`, `keys`, `token`).
    func check(_ address: PushAddress) async throws(SoomError)
}
