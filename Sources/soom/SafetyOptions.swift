import ArgumentParser
import Foundation
import SoomDomain
import SoomHTTP

/// `soom serve`'s safety settings: reports and restrictions, and rate limits.
struct SafetyOptions: ParsableArguments {
    private static let environment = ProcessInfo.processInfo.environment

    @Option(name: .customLong("report-threshold"), help: "Distinct reporters that hide a card (env SOOM_REPORT_THRESHOLD).")
    var reportThreshold: Int = Self.environment["SOOM_REPORT_THRESHOLD"].flatMap(Int.init) ?? ModerationPolicy.default.reportThreshold

    @Option(
        name: .customLong("restriction-days"),
        help: "Posting restriction lengths in days, first restriction first, comma-separated; later ones use the last (env SOOM_RESTRICTION_DAYS).")
    var restrictionDays: String =
        Self.environment["SOOM_RESTRICTION_DAYS"]
        ?? ModerationPolicy.default.restrictionDays.map(String.init).joined(separator: ",")

    @Option(
        name: .customLong("reporter-min-age"),
        help: "Seconds an account must exist before its reports count toward hiding a card (env SOOM_REPORTER_MIN_AGE).")
    var reporterMinimumAge: Int = Self.environment["SOOM_REPORTER_MIN_AGE"].flatMap(Int.init) ?? ModerationPolicy.defaultReporterMinimumAge

    @Option(name: .customLong("rate-limit"), help: "on, or off to switch every rate limit off (env SOOM_RATE_LIMIT).")
    var rateLimit: String = Self.environment["SOOM_RATE_LIMIT"] ?? "on"

    @Option(name: .customLong("rate-limit-challenges"), help: "Challenges per client address, count/seconds (env SOOM_RATE_LIMIT_CHALLENGES).")
    var challenges: String = Self.environment["SOOM_RATE_LIMIT_CHALLENGES"] ?? RateLimits().challenges.description

    @Option(name: .customLong("rate-limit-accounts"), help: "Account creations per client address, count/seconds (env SOOM_RATE_LIMIT_ACCOUNTS).")
    var accounts: String = Self.environment["SOOM_RATE_LIMIT_ACCOUNTS"] ?? RateLimits().accountCreation.description

    @Option(name: .customLong("rate-limit-posts"), help: "Cards and comment cards per account, count/seconds (env SOOM_RATE_LIMIT_POSTS).")
    var posts: String = Self.environment["SOOM_RATE_LIMIT_POSTS"] ?? RateLimits().posting.description

    @Option(name: .customLong("rate-limit-uploads"), help: "Image uploads per account, count/seconds (env SOOM_RATE_LIMIT_UPLOADS).")
    var uploads: String = Self.environment["SOOM_RATE_LIMIT_UPLOADS"] ?? RateLimits().uploads.description

    @Option(name: .customLong("upload-quota"), help: "Bytes of uploads an account may store, bytes/seconds (env SOOM_UPLOAD_QUOTA).")
    var uploadQuota: String = Self.environment["SOOM_UPLOAD_QUOTA"] ?? RateLimits().uploadBytes.description

    @Option(
        name: .customLong("rate-limit-default"), help: "Every other /v1 request per account or address, count/seconds (env SOOM_RATE_LIMIT_DEFAULT).")
    var general: String = Self.environment["SOOM_RATE_LIMIT_DEFAULT"] ?? RateLimits().general.description

    @Option(
        name: .customLong("trust-forwarded-for"),
        help: "true behind a proxy that appends the client to X-Forwarded-For: count unauthenticated callers by it (env SOOM_TRUST_FORWARDED_FOR).")
    var trustForwardedFor: Bool = Self.environment["SOOM_TRUST_FORWARDED_FOR"].map { $0 == "true" || $0 == "1" } ?? false

    func validate() throws {
        _ = try self.moderation()
        _ = try self.rateLimits()
    }

    func moderation() throws -> ModerationPolicy {
        let days = self.restrictionDays.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !days.contains(nil) else { throw ValidationError("--restriction-days must be whole days separated by commas, e.g. 1,7,14,30") }
        do {
            return try ModerationPolicy(
                reportThreshold: self.reportThreshold, restrictionDays: days.compactMap { $0 }, reporterMinimumAge: self.reporterMinimumAge)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    func rateLimits() throws -> RateLimits? {
        switch self.rateLimit.lowercased() {
        case "off", "false", "0": return nil
        case "on", "true", "1": break
        default: throw ValidationError("--rate-limit must be on or off")
        }
        var limits = RateLimits()
        limits.challenges = try Self.rule(self.challenges, "--rate-limit-challenges")
        limits.accountCreation = try Self.rule(self.accounts, "--rate-limit-accounts")
        limits.posting = try Self.rule(self.posts, "--rate-limit-posts")
        limits.general = try Self.rule(self.general, "--rate-limit-default")
        limits.uploads = try Self.rule(self.uploads, "--rate-limit-uploads")
        limits.uploadBytes = try Self.rule(self.uploadQuota, "--upload-quota")
        return limits
    }

    private static func rule(_ text: String, _ option: String) throws -> RateLimits.Rule {
        guard let rule = RateLimits.Rule(parsing: text) else {
            throw ValidationError("\(option) must be count/seconds, e.g. 30/60 (seconds 1-86400)")
        }
        return rule
    }
}
