import Foundation
import Hummingbird
import Logging
import NIOCore
import SoomDomain
import Synchronization
import Testing

@testable import SoomHTTP

/// `ErrorMiddleware.apiError`: every error becomes the contract's JSON error, and the database's
/// failures (domain errors since the data layer translates them) keep their statuses and log lines.
@Suite("Error mapping")
struct ErrorMappingTests {
    /// The lines a logger wrote, as `soom serve` writes them (JSON).
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { self.lines.withLock { $0 } }

        var logger: Logger {
            Logger(label: "test") { label in
                var handler = JSONLogHandler(label: label) { bytes in self.lines.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) } }
                handler.logLevel = .trace
                return handler
            }
        }
    }

    func map(_ error: any Error) -> (APIError, [String]) {
        let lines = Lines()
        let mapped = ErrorMiddleware<AppRequestContext>.apiError(for: error, logger: lines.logger)
        return (mapped, lines.all)
    }

    @Test("a timeout is 503 timeout with Retry-After, logged as a rolled-back request")
    func timeout() {
        let (error, lines) = self.map(SoomError.databaseTimeout)
        #expect(error == .timeout)
        #expect(error.status == .serviceUnavailable && error.code == "timeout" && error.headers[.retryAfter] == "5")
        #expect(lines.count == 1 && lines[0].contains("\"level\":\"warning\"") && lines[0].contains("request outlived its deadline; rolled back"))
    }

    @Test("an unreachable database is 503 database_unavailable with Retry-After, logged with its reason")
    func unavailable() {
        let (error, lines) = self.map(SoomError.databaseUnavailable(reason: "connectionError"))
        #expect(error == .databaseUnavailable)
        #expect(error.status == .serviceUnavailable && error.headers[.retryAfter] == "5")
        #expect(lines.count == 1 && lines[0].contains("\"message\":\"database unavailable\""))
        #expect(lines[0].contains("\"error\":\"database unavailable: connectionError\""))
    }

    @Test("a value the database refuses is 400 invalid_request, logged by its SQLSTATE alone")
    func unstorable() {
        let (error, lines) = self.map(SoomError.unstorableValue(sqlState: "22P05"))
        #expect(error.status == .badRequest && error.code == "invalid_request" && error.field == nil && error.extra.isEmpty)
        #expect(error.message == "The request holds a value that cannot be stored (for example a NUL character).")
        #expect(lines.count == 1 && lines[0].contains("request value refused by the database") && lines[0].contains("\"sqlstate\":\"22P05\""))
    }

    @Test("domain errors map themselves, without a log line")
    func domain() {
        let (validation, lines) = self.map(SoomError.validationFailed(field: "text", "text is too long."))
        #expect(validation.status == .unprocessableContent && validation.code == "validation_failed" && validation.field == "text")
        #expect(lines.isEmpty)
        #expect(self.map(SoomError.unauthorized).0.headers[.wwwAuthenticate] == "Bearer")
        #expect(self.map(SoomError.nicknameTaken).0.status == .conflict)
    }

    @Test("framework errors get the contract's codes; anything else is a logged 500")
    func framework() {
        #expect(self.map(HTTPError(.notFound)).0 == .notFound)
        #expect(self.map(NIOTooManyBytesError(maxBytes: 1)).0.status == .contentTooLarge)
        #expect(self.map(HTTPError(.badRequest, message: "bad")).0 == APIError(.badRequest, code: "invalid_request", message: "bad"))
        struct Surprise: Error {}
        let (error, lines) = self.map(Surprise())
        #expect(error == .internalError)
        #expect(lines.count == 1 && lines[0].contains("\"level\":\"error\"") && lines[0].contains("unexpected error"))
    }

    @Test("an error that passed a limited route keeps its own mapping and headers, the route's after them")
    func headered() {
        let wrapped = HeaderedError(error: SoomError.databaseTimeout, headers: [.rateLimitLimit: "5", .rateLimitRemaining: "4"])
        let (error, lines) = self.map(wrapped)
        #expect(error.status == .serviceUnavailable && error.code == "timeout")
        #expect(Array(error.headers.map(\.name.rawName)) == ["Retry-After", "RateLimit-Limit", "RateLimit-Remaining"])
        #expect(lines.count == 1, "logged once, as the error it wraps")
        #expect(self.map(HeaderedError(error: SoomError.unauthorized, headers: [.rateLimitLimit: "5"])).0.headers[.wwwAuthenticate] == "Bearer")
    }

    @Test("an upload over its daily bytes is 429 rate_limited with Retry-After in whole seconds")
    func overQuota() {
        let now = Date(timeIntervalSince1970: 1000)
        let exceeded = UploadQuotaExceeded(quota: UploadQuota(bytes: 100 * 1024 * 1024, window: 86_400), retryAt: now.addingTimeInterval(41.2))
        let error = APIError.overQuota(exceeded, now: now)
        #expect(error.status == .tooManyRequests && error.code == "rate_limited" && error.headers[.retryAfter] == "42")
        #expect(error.message == "This account has uploaded its 100 MiB of pictures for 24 hours; try again in 42 seconds.")
        #expect(self.map(exceeded).0.code == "rate_limited")
    }
}
