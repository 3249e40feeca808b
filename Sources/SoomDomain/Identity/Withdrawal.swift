import Foundation

/// What remains of a key's last withdrawal for the rejoin rule: when it withdrew, and the end of
/// the posting restriction it withdrew under (nil when it was not restricted then).
public struct Withdrawal: Sendable, Equatable {
    public let withdrawnAt: Date
    public let restrictedUntil: Date?

    public init(withdrawnAt: Date, restrictedUntil: Date?) {
        self.withdrawnAt = withdrawnAt
        self.restrictedUntil = restrictedUntil
    }

    /// When the key may register again: the later of seven days after withdrawing and the end of
    /// the restriction, so that withdrawing is no way out of one.
    public var rejoinAvailableAt: Date {
        max(self.withdrawnAt.addingTimeInterval(RegisterAccount.rejoinDelay), self.restrictedUntil ?? .distantPast)
    }
}
