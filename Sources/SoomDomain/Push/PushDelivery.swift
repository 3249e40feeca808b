import Foundation

/// One notification to send to one subscription, as the delivery queue hands it out (claimed for
/// a while, so that no other instance sends it meanwhile).
public struct PushDelivery: Sendable, Equatable {
    public let id: Int64
    /// How many times it has been claimed, this time included: completing it names this too, so a
    /// claim that expired and was taken again elsewhere cannot be completed twice.
    public let attempt: Int
    /// When it was queued: after 24 hours it is given up.
    public let queuedAt: Date
    public let subscriptionID: UUID
    public let address: PushAddress
    public let recipient: UUID
    public let notification: AccountNotification
    public let settings: NotificationSettings
    /// The notification's actor and recipient are blocked either way (since it was made): never sent.
    public let blocked: Bool

    public init(
        id: Int64, attempt: Int, queuedAt: Date, subscriptionID: UUID, address: PushAddress, recipient: UUID,
        notification: AccountNotification, settings: NotificationSettings, blocked: Bool
    ) {
        self.id = id
        self.attempt = attempt
        self.queuedAt = queuedAt
        self.subscriptionID = subscriptionID
        self.address = address
        self.recipient = recipient
        self.notification = notification
        self.settings = settings
        self.blocked = blocked
    }
}

/// What a push service said about one delivery.
public enum PushOutcome: Sendable, Equatable {
    /// Accepted (`201`/`200`).
    case delivered
    /// The subscription is gone (`404`, `410`, an unregistered token): it is deleted.
    case gone
    /// Try again later (`429`, `5xx`, a timeout, no connection), not before `after` when the
    /// service said so (`Retry-After`).
    case retry(after: Duration?)
    /// Refused for good (`400`, `403`, `413`): dropped, counted as failed.
    case failed
}

/// What becomes of each claimed delivery, written back in one statement.
public struct PushCompletion: Sendable, Equatable {
    public enum Result: Sendable, Equatable {
        /// Sent, or given up: the delivery is deleted.
        case done
        /// The subscription is deleted (and with it its deliveries).
        case gone
        /// Claimed again no sooner than `at`.
        case again(at: Date)
    }

    public let id: Int64
    public let attempt: Int
    public let subscriptionID: UUID
    public let result: Result

    public init(id: Int64, attempt: Int, subscriptionID: UUID, result: Result) {
        self.id = id
        self.attempt = attempt
        self.subscriptionID = subscriptionID
        self.result = result
    }
}
