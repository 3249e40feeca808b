import Foundation

/// How much one account may store by uploading: the pictures it uploaded within the last `window`
/// seconds hold at most `bytes` (their stored size, after scrubbing).
///
/// A byte budget, not a count: the rate limit counts uploads, this bounds what they cost the database,
/// which is what an account flooding uploads fills (at most 5 MiB each, and an unused one stays 24 hours).
/// Checked and written in one transaction that holds the account's row, so concurrent uploads of one
/// account cannot pass it together.
public struct UploadQuota: Sendable, Equatable {
    public let bytes: Int
    public let window: Double

    /// At least `ImageUploadRules.maximumBytes`, so that any single upload can fit.
    public init(bytes: Int, window: Double) {
        self.bytes = max(bytes, ImageUploadRules.maximumBytes)
        self.window = window
    }

    /// 100 MiB a day: twenty full-size photos, far more than a person posts, and at most about 3 GB a
    /// month per account however it is driven.
    public static let `default` = UploadQuota(bytes: 100 * 1024 * 1024, window: 24 * 60 * 60)

    /// No quota (the limits switched off: benchmarks, tests).
    public static let unbounded = UploadQuota(bytes: Int.max / 2, window: 1)
}

/// An upload refused by its account's `UploadQuota`; `retryAt` is when enough of the window's uploads
/// will have aged out for it to fit. The HTTP layer answers `429 rate_limited` with `Retry-After`.
public struct UploadQuotaExceeded: Error, Sendable, Equatable {
    public let quota: UploadQuota
    public let retryAt: Date

    public init(quota: UploadQuota, retryAt: Date) {
        self.quota = quota
        self.retryAt = retryAt
    }
}
