import Foundation

/// A session that was live when read: its account and when it expires.
public struct LiveSession: Sendable, Equatable {
    public let account: Account
    public let expiresAt: Date

    public init(account: Account, expiresAt: Date) {
        self.account = account
        self.expiresAt = expiresAt
    }
}
