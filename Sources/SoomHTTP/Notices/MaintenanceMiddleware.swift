import Foundation
import Hummingbird
import SoomDomain

/// While an operator has switched maintenance on (`soom admin maintenance on --until`), a `/v1`
/// write it stands in front of answers `503 maintenance` with `Retry-After` (the seconds left)
/// and `"until"`, and does nothing. Reads keep working. `APIRoutes` puts it in front of every
/// write's handler (after its rate limit and session) except signing in and out and the nickname
/// check, so that clients can still read.
struct MaintenanceMiddleware<Context: RequestContext>: RouterMiddleware {
    let switches: OperatorSwitches

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let now = Date()
        guard let until = self.switches.maintenance(at: now) else { return try await next(request, context) }
        throw APIError.maintenance(until: until, now: now)
    }
}

extension APIError {
    /// `503 maintenance` until `until`.
    static func maintenance(until: Date, now: Date) -> APIError {
        let seconds = max(1, Int(until.timeIntervalSince(now).rounded(.up)))
        return APIError(
            .serviceUnavailable, code: "maintenance",
            message: "Soom is under maintenance; nothing can be changed until it ends. Reading still works.",
            extra: ["until": JSON.timestamp(until)], headers: [.retryAfter: "\(seconds)"])
    }
}
