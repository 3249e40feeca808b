import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import SoomDomain

/// The one place an error becomes an answer: the contract's JSON error, so that nothing leaves
/// the server as a bare status or an HTML page. Handlers, reactors and other middleware just
/// throw. Domain errors map themselves (`SoomError.apiError`), framework errors (unknown route,
/// body too large) get the contract's codes, an unreachable database is `503
/// database_unavailable` (the data layer reports its failures as `SoomError`s), an error that
/// passed a limited route brings that route's headers (`HeaderedError`), and anything unexpected
/// is logged and becomes `500 internal_error`.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return Self.apiError(for: error, logger: context.logger).response()
        }
    }

    /// The contract's error for `error`, logged where it says something about the server.
    static func apiError(for error: any Error, logger: Logger) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as HeaderedError:
            return Self.apiError(for: error.error, logger: logger).adding(error.headers)
        case let exceeded as UploadQuotaExceeded:
            return .overQuota(exceeded, now: Date())
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
        // The client's fault, not the server's: a body that stopped arriving, a body the HTTP
        // decoder cannot parse (a malformed chunk), a connection that ended mid-body. Logged at
        // info (an error-level line per aborted upload would bury real errors) and answered as a
        // 4xx, which the client gets if it is still there and the metrics count as what it is.
        case is RequestBodyTooSlow:
            logger.info("request body too slow; closing the connection")
            return APIError(.requestTimeout, code: "request_timeout", message: "The request body stopped arriving; send it again.")
        case let error as HTTPParserError:
            logger.info("malformed request body", metadata: ["error": "\(error)"])
            return APIError(.badRequest, code: "invalid_request", message: "The request body is malformed.")
        case is ChannelError, is IOError:
            logger.info("connection ended during the request", metadata: ["error": "\(loggableDescription(of: error))"])
            return APIError(.badRequest, code: "invalid_request", message: "The connection ended before the request did.")
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
