import SoomDomain

/// A reason the server cannot start.
public struct StartupError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { self.message }

    /// Nicknames are unique by their confusable skeleton: without ICU's data that rule would be
    /// weaker, silently. Refuse to start instead.
    static func requireUnicodeSecurity() throws {
        guard UnicodeSecurity.isAvailable else { throw StartupError(message: "ICU's confusable data (libicu) does not answer as expected") }
    }
}
