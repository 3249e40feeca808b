import Hummingbird
import NIOCore

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
        try self.response()
    }

    func response() throws -> Response {
        try JSON.response(
            self.status, Envelope(error: Body(code: self.code, message: self.message, field: self.field, extra: self.extra)),
            headers: self.headers)
    }

    private struct Envelope: Encodable {
        let error: Body
    }

    private struct Body: Encodable {
        let code: String
        let message: String
        let field: String?
        let extra: [String: String]

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(self.code, forKey: Key(stringValue: "code"))
            try container.encode(self.message, forKey: Key(stringValue: "message"))
            try container.encodeIfPresent(self.field, forKey: Key(stringValue: "field"))
            for (key, value) in self.extra { try container.encode(value, forKey: Key(stringValue: key)) }
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

    static let internalError = APIError(
        .internalServerError, code: "internal_error", message: "Something went wrong on our side. It has been logged.")
}
