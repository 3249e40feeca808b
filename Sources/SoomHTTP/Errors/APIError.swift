import Foundation
import Hummingbird
import SoomDomain

/// An error as the contract shows it: an HTTP status and
/// `{"error": {"code": "snake_case", "message": "…", "field"?: "…", …extra}}`.
///
/// Every error leaving the server takes this shape (see `ErrorMiddleware`).
public struct APIError: HTTPResponseError, Sendable, Equatable {
    public let status: HTTPResponse.Status
    public let code: String
    public let message: String
    public let field: String?
    /// Extra members of the error object (already formatted, e.g. times as RFC 3339 strings).
    public let extra: [String: String]
    public let headers: HTTPFields

    public init(
        _ status: HTTPResponse.Status, code: String, message: String, field: String? = nil, extra: [String: String] = [:],
        headers: HTTPFields = [:]
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.extra = extra
        var headers = headers
        if status == .unauthorized, headers[.wwwAuthenticate] == nil {
            headers[.wwwAuthenticate] = "Bearer"
        }
        self.headers = headers
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        self.response()
    }

    /// The answer: the status, the headers, and the JSON body.
    func response() -> Response {
        JSON.response(self.status, writing: Body(error: self), capacity: 256, headers: self.headers)
    }

    /// This error with `headers` after its own (a limited route's `RateLimit-*`).
    func adding(_ headers: HTTPFields) -> APIError {
        APIError(self.status, code: self.code, message: self.message, field: self.field, extra: self.extra, headers: self.headers + headers)
    }

    /// `{"error": {"code", "message", "field"?, …extra}}`; `field` only when there is one.
    struct Body: JSONWritable {
        let error: APIError

        func write(to writer: inout JSONWriter) {
            writer.beginObject()
            writer.key("error")
            writer.beginObject()
            writer.member("code", self.error.code)
            writer.member("message", self.error.message)
            if let field = self.error.field {
                writer.member("field", field)
            }
            for (key, value) in self.error.extra {
                writer.key(key)
                writer.string(value)
            }
            writer.endObject()
            writer.endObject()
        }
    }
}

extension APIError {
    static let notFound = APIError(.notFound, code: "not_found", message: "There is nothing at this path.")

    static func methodNotAllowed(allowed: [HTTPRequest.Method]) -> APIError {
        let list = allowed.map(\.rawValue).joined(separator: ", ")
        return APIError(
            .methodNotAllowed, code: "method_not_allowed", message: "This path accepts only: \(list).", headers: [.allow: list])
    }

    static func payloadTooLarge(limit: Int) -> APIError {
        APIError(.contentTooLarge, code: "payload_too_large", message: "The body is larger than \(limit / 1024) KiB.")
    }

    static let databaseUnavailable = APIError(
        .serviceUnavailable, code: "database_unavailable", message: "The database cannot be reached right now; try again shortly.",
        headers: [.retryAfter: "5"])

    static let timeout = APIError(
        .serviceUnavailable, code: "timeout", message: "The request could not finish within 10 seconds and had no effect; try again.",
        headers: [.retryAfter: "5"])

    /// `429 rate_limited` with `Retry-After` for an upload over its account's daily bytes: the same
    /// answer as the upload count's limit, so a client waits the same way.
    static func overQuota(_ exceeded: UploadQuotaExceeded, now: Date) -> APIError {
        let seconds = max(1, Int(exceeded.retryAt.timeIntervalSince(now).rounded(.up)))
        let mebibytes = exceeded.quota.bytes / (1024 * 1024)
        let hours = Int(exceeded.quota.window / 3600)
        return APIError(
            .tooManyRequests, code: "rate_limited",
            message: "This account has uploaded its \(mebibytes) MiB of pictures for \(hours) hours; try again in \(seconds) seconds.",
            headers: [.retryAfter: "\(seconds)"])
    }

    static let internalError = APIError(
        .internalServerError, code: "internal_error", message: "Something went wrong on our side. It has been logged.")
}
