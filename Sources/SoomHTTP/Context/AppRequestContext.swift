import Hummingbird
import SoomDomain

/// The context of every request: Hummingbird's core storage, plus the caller once a session
/// token has been checked (see `AuthenticationMiddleware`).
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by `AuthenticationMiddleware` when the request carries a live session token.
    public var caller: Authenticate.Caller?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.caller = nil
    }
}
