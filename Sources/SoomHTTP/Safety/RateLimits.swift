import Foundation

/// The contract's rate limits, as configured: how many requests a caller may make per window.
///
/// Each request counts against exactly one limit, the one its route was registered with
/// (`APIRoutes`). Signed-in callers are
/// counted per account; requests without a session (only the public routes allow that) per
/// client address. The counts live in the memory of each server instance (see `RateLimiter`).
public struct RateLimits: Sendable, Equatable {
    /// At most `count` requests per `window` seconds.
    public struct Rule: Sendable, Equatable, CustomStringConvertible {
        public let count: Int
        public let window: Int

        public init(count: Int, window: Int) {
            self.count = count
            self.window = window
        }

        /// `"count/seconds"`, e.g. `"30/60"`; nil when malformed or not positive.
        public init?(parsing text: String) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let count = Int(parts[0]), let window = Int(parts[1]), count > 0, (1...86_400).contains(window) else {
                return nil
            }
            self.init(count: count, window: window)
        }

        public var description: String { "\(self.count)/\(self.window)" }
    }

    /// `POST /v1/auth/challenges`: 30 a minute.
    public var challenges = Rule(count: 30, window: 60)
    /// `POST /v1/accounts`: 5 an hour.
    public var accountCreation = Rule(count: 5, window: 3600)
    /// `POST /v1/cards` and `POST /v1/cards/{id}/comments`: 30 in 10 minutes.
    public var posting = Rule(count: 30, window: 600)
    /// Every other `/v1` route: 600 in 5 minutes.
    public var general = Rule(count: 600, window: 300)
    /// `POST /v1/images`: 20 an hour (each up to 5 MiB; the bytes they store have a daily quota of
    /// their own, `UploadQuota`).
    public var uploads = Rule(count: 20, window: 3600)
    /// Bytes of uploads stored per account per window (`UploadQuota`): 100 MiB a day, checked by the
    /// upload's own transaction rather than counted here.
    public var uploadBytes = Rule(count: 100 * 1024 * 1024, window: 86_400)

    public init() {}

    /// Which limit a route's requests count against.
    public enum Kind: Int, Sendable, CaseIterable {
        case challenges, accountCreation, posting, general, uploads
    }

    public func rule(_ kind: Kind) -> Rule {
        switch kind {
        case .challenges: self.challenges
        case .accountCreation: self.accountCreation
        case .posting: self.posting
        case .general: self.general
        case .uploads: self.uploads
        }
    }
}
