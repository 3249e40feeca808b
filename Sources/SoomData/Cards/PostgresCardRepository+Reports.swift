import Foundation
import PostgresNIO
import SoomDomain

extension PostgresCardRepository {
    /// One round trip: `report_card` (`sql/0012_reporter_age.sql`) records the report and, at the
    /// threshold, hides the card, releases its counts and restricts its author, in one transaction.
    public func report(cardID: UUID, by reporter: UUID, reason: ReportReason, at time: Date, policy: ModerationPolicy) async throws -> ReportOutcome {
        let rows = try await self.database.rows(
            """
            SELECT report_card(\(cardID), \(reporter), \(reason.rawValue), \(time), \(policy.reportThreshold)::int, \(policy.restrictionDays)::int[], \(policy.reporterMinimumAge)::int)
            """)
        switch try RowCells.decode(rows[0], String.self) {
        case "reported": return .reported
        case "hidden": return .hid
        case "own_card": return .ownCard
        case "already_reported": return .alreadyReported
        default: return .notFound
        }
    }

    /// Deletes idempotency records past their 24 hours (a later request with the same key makes a
    /// new card anyway), oldest first, skipping rows another instance is deleting.
    public func purgeIdempotencyKeys(limit: Int) async throws -> Int {
        let rows = try await self.database.rows(
            """
            WITH gone AS (
                DELETE FROM idempotency_keys WHERE (account_id, key) IN (
                    SELECT account_id, key FROM idempotency_keys
                    WHERE created_at < now() - make_interval(secs => \(IdempotencyRecord.lifetime))
                    ORDER BY created_at LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                RETURNING 1)
            SELECT count(*)::int FROM gone
            """)
        return try RowCells.decode(rows[0], Int.self)
    }
}
