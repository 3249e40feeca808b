import AsyncHTTPClient
import ServiceLifecycle

/// Keeps the push services' HTTP client open while the server runs, and shuts it down once the
/// server stops (after the delivery service, which is listed after it and so stops first).
struct PushClientLifetime: Service {
    let client: HTTPClient

    func run() async throws {
        try? await gracefulShutdown()
        try? await self.client.shutdown()
    }
}
