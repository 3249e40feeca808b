import Hummingbird
import Logging
import NIOCore
import SoomDomain

/// Turns every error into the contract's JSON error, so that nothing leaves the server as a bare
/// status or an HTML page: domain errors map themselves, framework errors (unknown route, body
/// too large) get the contract's codes, an unreachable database is `503 database_unavailable`
/// (the data layer reports its failures as `SoomError`s), and anything unexpected is logged and
/// becomes `500 internal_error`.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return try Self.apiError(for: error, logger: context.logger).response()
        }
    }

    static func apiError(for error: any Error, logger: Logger) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as SoomError:
            switch error.kind {
            case .timeout:
                logger.warning("request outlived its deadline; rolled back")
            case .unavailable:
                logger.warning("database unavailable", metadata: ["error": "\(error)"])
            case .unstorableValue:
                // A data exception (class 22: a NUL character in text, a number out of range, …) is a
                // value from the request that validation let through: the request is at fault, and
                // nothing was written (the statement failed). Logged by its SQLSTATE alone, never the
                // database's message, which may quote the value.
                logger.warning("request value refused by the database", metadata: ["sqlstate": "\(error.cause ?? "")"])
            default:
                break
            }
            return error.apiError
        case is NIOTooManyBytesError:
            return .payloadTooLarge(limit: Request.maximumJSONBodySize)
        case let error as HTTPError:
            switch error.status {
            case .notFound: return .notFound
            case .contentTooLarge: return .payloadTooLarge(limit: Request.maximumJSONBodySize)
            case .badRequest: return APIError(.badRequest, code: "invalid_request", message: error.body ?? "The request is malformed.")
            default:
                return APIError(
                    error.status, code: error.status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "_"),
                    message: error.body ?? error.status.reasonPhrase)
            }
        default:
            logger.error("unexpected error", metadata: ["error": "\(loggableDescription(of: error))", "type": "\(type(of: error))"])
            return .internalError
        }
    }
}
