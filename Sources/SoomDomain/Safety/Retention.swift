import Foundation

/// How long the server keeps what it does not need for good (PRIVACY.md says it to users). The
/// periodic `retention` job deletes what is older.
public enum Retention {
    /// Notifications, read or not.
    public static let notifications: TimeInterval = 30 * 24 * 60 * 60
    /// What remains of a withdrawn account (reason, time, key fingerprint for the 7-day rejoin rule).
    public static let withdrawals: TimeInterval = 30 * 24 * 60 * 60
}
