import Hummingbird
import SoomDomain

/// The context of every request: Hummingbird's core storage, plus the caller once a session
/// token has been checked (see `AuthenticationMiddleware`).
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by `AuthenticationMiddleware` when the request carries a live session token.
    public var caller: Authenticate.Caller?
    /// The peer's IP address, only for counting unauthenticated requests against their rate limit
    /// (`RateLimitMiddleware` hashes it). Never logged, stored or returned.
    let peerAddress: String?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.caller = nil
        self.peerAddress = source.channel.remoteAddress?.ipAddress
    }
}
