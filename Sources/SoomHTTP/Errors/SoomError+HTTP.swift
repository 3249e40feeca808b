import Hummingbird
import SoomDomain

extension SoomError {
    /// The domain error as the contract shows it. The one place a domain failure meets HTTP.
    var apiError: APIError {
        // The two 503s carry `Retry-After`.
        if self.kind == .timeout { return .timeout }
        if self.kind == .unavailable { return .databaseUnavailable }
        let status: HTTPResponse.Status =
            switch self.kind {
            case .invalidRequest: .badRequest
            case .validation: .unprocessableContent
            case .unauthenticated: .unauthorized
            case .forbidden: .forbidden
            case .notFound: .notFound
            case .conflict: .conflict
            case .restricted: HTTPResponse.Status(code: 423, reasonPhrase: "Locked")
            case .payloadTooLarge: .contentTooLarge
            case .unsupportedMediaType: .unsupportedMediaType
            case .unstorableValue: .badRequest
            case .timeout, .unavailable: .serviceUnavailable
            }
        let extra = self.details.mapValues { detail in
            switch detail {
            case .time(let date): JSON.timestamp(date)
            case .string(let text): text
            }
        }
        return APIError(status, code: self.code, message: self.message, field: self.field, extra: extra)
    }
}
