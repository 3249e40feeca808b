import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// One log line per request — method, route, status, duration and request ID — and the
/// `X-Request-ID` header.
///
/// A client's or proxy's `X-Request-ID` (1–128 visible ASCII characters) is kept, otherwise a
/// random one (128 bits, 32 hex digits) is made; either way it is echoed back and carried as
/// `hb.request.id` by every log line of the request. Never Hummingbird's own ID: that is a
/// per-process counter, and two IDs a client sees would tell how many requests others made between. The route is the matched template
/// (`/v1/cards/{id}`), never the raw path or query, and nothing from headers or bodies is
/// logged: no token, signature, key, fingerprint or client address can reach the log.
/// Operations routes (`/healthz`, `/readyz`, `/metrics`, …), which probes call every few
/// seconds, log at debug; everything else at info.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let id: String
        if let given = request.headers[.xRequestID], Self.isAcceptable(given) {
            id = given
        } else {
            id = Self.randomID()
        }
        context.logger[metadataKey: "hb.request.id"] = .string(id)
        let started = ContinuousClock.now
        let status: HTTPResponse.Status
        var response: Response
        do {
            response = try await next(request, context)
            status = response.status
        } catch {
            // ErrorMiddleware (inside this one) answers every error; this is only a last resort.
            self.log(request, context: context, status: .internalServerError, since: started)
            throw error
        }
        response.headers[.xRequestID] = id
        self.log(request, context: context, status: status, since: started)
        return response
    }

    private func log(_ request: Request, context: Context, status: HTTPResponse.Status, since started: ContinuousClock.Instant) {
        let route = context.endpointPath ?? "unmatched"
        let level: Logger.Level = route.hasPrefix("/v1") || route == "unmatched" ? .info : .debug
        guard context.logger.logLevel <= level else { return }
        let elapsed = started.duration(to: .now)
        context.logger.log(
            level: level, "request",
            metadata: [
                "http.method": .string(request.method.rawValue), "http.route": .string(route), "http.status": .stringConvertible(status.code),
                "duration_ms": .string(Self.milliseconds(elapsed)),
            ])
    }

    /// `12.34`: milliseconds with two decimals (truncated), without `String(format:)`'s cost.
    static func milliseconds(_ duration: Duration) -> String {
        let hundredths = duration.components.seconds * 100_000 + duration.components.attoseconds / 10_000_000_000_000
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// 128 random bits as 32 lower-case hex digits, from the system's secure generator.
    static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var bytes = [UInt8](repeating: 0, count: 32)
        for half in 0..<2 {
            var value = generator.next() as UInt64
            for index in 0..<16 {
                bytes[half * 16 + index] = digits[Int(value & 0xF)]
                value >>= 4
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func isAcceptable(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count) && id.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}

extension HTTPField.Name {
    static let xRequestID = Self("X-Request-ID")!
}
