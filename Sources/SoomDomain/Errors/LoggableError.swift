/// An error that knows how logs may show it, when its own description would say too little or
/// too much (a driver's error: its code and the server's message, never the bound values).
public protocol LoggableError: Error {
    /// What a log line may show of this error.
    var loggableDescription: String { get }
}

/// An error as logs may show it: a `LoggableError`'s own `loggableDescription`, else its description.
public func loggableDescription(of error: any Error) -> String {
    (error as? any LoggableError)?.loggableDescription ?? "\(error)"
}
