import Hummingbird
import HummingbirdCore
import NIOCore

extension HTTPServerBuilder {
    /// HTTP/1.1 with the slow-client rules: the first request head within `headTimeout` of
    /// connecting (`RequestHeadTimeoutHandler`); after that no more than `idleTimeout` without a
    /// whole request head or body part; a body that keeps arriving (`RequestBodyRateHandler`, judged
    /// after `bodyGrace` of waiting for it); and
    /// at most `connectionsPerAddress` open connections per client address (nil: unbounded;
    /// `ConnectionLimitHandler`).
    public static func soom(
        headTimeout: Duration, idleTimeout: Duration, connectionsPerAddress: Int? = nil, bodyGrace: Duration = .seconds(10)
    ) -> HTTPServerBuilder {
        let counts = connectionsPerAddress.map { ConnectionLimitHandler.Counts(limit: $0) }
        return .http1(
            configuration: .init(
                additionalChannelHandlers: (counts.map { [ConnectionLimitHandler(counts: $0)] } ?? [])
                    + [RequestHeadTimeoutHandler(timeout: TimeAmount(headTimeout)), RequestBodyRateHandler(grace: TimeAmount(bodyGrace))],
                idleTimeout: TimeAmount(idleTimeout)))
    }
}
