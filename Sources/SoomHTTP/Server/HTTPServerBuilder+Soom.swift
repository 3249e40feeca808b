import Hummingbird
import HummingbirdCore
import NIOCore

extension HTTPServerBuilder {
    /// HTTP/1.1 with the slow-client rules: the first request head within `headTimeout` of
    /// connecting (`RequestHeadTimeoutHandler`); after that no more than `idleTimeout` without a
    /// whole request head or body part.
    public static func soom(headTimeout: Duration, idleTimeout: Duration) -> HTTPServerBuilder {
        .http1(
            configuration: .init(
                additionalChannelHandlers: [RequestHeadTimeoutHandler(timeout: TimeAmount(headTimeout))], idleTimeout: TimeAmount(idleTimeout)))
    }
}
