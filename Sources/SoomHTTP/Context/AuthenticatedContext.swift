import Hummingbird
import SoomDomain

/// The context of routes that need a session. It cannot exist without a caller: creating it
/// from a request that has none throws `401 unauthorized`, so no handler can forget the check.
public struct AuthenticatedContext: ChildRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The signed-in account and the hash of the token it used.
    public let caller: Authenticate.Caller

    public init(context: AppRequestContext) throws {
        guard let caller = context.caller else { throw SoomError.unauthorized }
        self.coreContext = context.coreContext
        self.caller = caller
    }
}
