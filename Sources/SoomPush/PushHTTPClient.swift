import AsyncHTTPClient
import NIOCore
import NIOSSL

/// The one HTTP client every push sender shares: connections to each push service are kept and
/// reused (HTTP/2 where the service offers it), redirects are never followed (an endpoint must not
/// lead the server elsewhere), and a send gives up after 10 seconds (a retry follows).
public enum PushHTTPClient {
    /// - Parameter extraRoots: a PEM file of further trusted roots (`SOOM_PUSH_CA_FILE`): a private
    ///   push service, or the tests' stand-ins.
    public static func make(extraRoots: String? = nil) -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let extraRoots { tls.additionalTrustRoots = [.file(extraRoots)] }
        let configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(5), read: .seconds(10)),
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 32))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
