import Foundation

/// A failure the domain reports to its callers: a stable `code`, a sentence for humans, and
/// the kind of failure (which the HTTP layer maps to a status, once, in `SoomError+HTTP`).
///
/// Public as a struct with static constructors so new failures never break callers.
public struct SoomError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is; the transport decides how to show it.
    public enum Kind: Sendable, Equatable {
        /// The request is malformed (bad JSON, wrong type).
        case invalidRequest
        /// A rule was broken (length, enum, count).
        case validation
        /// Missing or invalid credentials.
        case unauthenticated
        /// Authenticated, but not allowed.
        case forbidden
        case notFound
        /// The request conflicts with the current state (taken nickname, registered key).
        case conflict
        /// The caller must wait before doing this again.
        case restricted
        /// The request's body is larger than allowed.
        case payloadTooLarge
        /// The body is not of a type the route accepts.
        case unsupportedMediaType
        /// A value that passed validation was refused by storage (a NUL character in text, a
        /// number out of range): the request is at fault, and nothing was written.
        case unstorableValue
        /// The work did not finish within its deadline and had no effect.
        case timeout
        /// Something the domain needs (the database) cannot be reached right now.
        case unavailable
    }

    public let kind: Kind
    /// Stable snake_case code clients switch on.
    public let code: String
    public let message: String
    /// The request field at fault, when there is one.
    public let field: String?
    /// Extra machine-readable details (e.g. `rejoinAvailableAt`).
    public let details: [String: Detail]
    /// For logs only, never sent to clients and never a value from the request: what failed
    /// underneath (`database unavailable: connectionError`, a SQLSTATE).
    public let cause: String?

    /// A value carried in `details`.
    public enum Detail: Sendable, Equatable {
        case time(Date)
        case string(String)
    }

    public init(_ kind: Kind, code: String, message: String, field: String? = nil, details: [String: Detail] = [:], cause: String? = nil) {
        self.kind = kind
        self.code = code
        self.message = message
        self.field = field
        self.details = details
        self.cause = cause
    }

    /// The cause when there is one (what logs of background work show), else code and message.
    public var description: String { self.cause ?? "\(self.code): \(self.message)" }
}

extension SoomError {
    public static func invalidRequest(_ message: String, field: String? = nil) -> SoomError {
        SoomError(.invalidRequest, code: "invalid_request", message: message, field: field)
    }

    public static func validationFailed(field: String, _ message: String) -> SoomError {
        SoomError(.validation, code: "validation_failed", message: message, field: field)
    }

    public static let unauthorized = SoomError(.unauthenticated, code: "unauthorized", message: "A valid session token is required.")

    public static func invalidSignature(_ message: String) -> SoomError {
        SoomError(.unauthenticated, code: "invalid_signature", message: message)
    }

    public static func invalidPublicKey(_ message: String) -> SoomError {
        SoomError(.validation, code: "invalid_public_key", message: message, field: "publicKey")
    }

    public static let deviceAlreadyRegistered = SoomError(
        .conflict, code: "device_already_registered", message: "This device key already has an account; sign in instead.")

    public static let nicknameTaken = SoomError(.conflict, code: "nickname_taken", message: "That nickname is taken.", field: "nickname")

    public static func rejoinNotAllowed(until date: Date) -> SoomError {
        SoomError(
            .forbidden, code: "rejoin_not_allowed",
            message: "This device withdrew less than 7 days ago and cannot register again yet.",
            details: ["rejoinAvailableAt": .time(date)])
    }

    public static let accountNotFound = SoomError(.notFound, code: "account_not_found", message: "No account is registered for this key.")

    public static let invalidTransferCode = SoomError(
        .unauthenticated, code: "invalid_transfer_code", message: "The transfer code is unknown, expired or already used.", field: "code")
}
