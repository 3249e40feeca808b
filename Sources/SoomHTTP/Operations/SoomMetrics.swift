import Metrics
import Prometheus
import Synchronization

/// The process's metrics: recorded through swift-metrics everywhere (Hummingbird's
/// `MetricsMiddleware`, `Database`, the reactors, the rate limiter) and exported at `/metrics`
/// from one Prometheus registry.
///
/// swift-metrics has one backend per process, so `bootstrap` installs it once; every later call
/// (another app in the same process, as in the tests) does nothing. Call it before the first
/// database operation: metrics made before it stay bound to swift-metrics' no-op backend.
public enum SoomMetrics {
    public static let registry = PrometheusCollectorRegistry()
    private static let bootstrapped = Mutex(false)

    /// Installs the Prometheus backend, once per process.
    public static func bootstrap() {
        let first = Self.bootstrapped.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        var factory = PrometheusMetricsFactory(registry: Self.registry)
        // Most requests take a few milliseconds: resolve those, up to the 5-second database deadline.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5),
        ]
        // Prometheus names allow letters, digits, `_` and `:`; Hummingbird's labels use dots.
        factory.nameAndLabelSanitizer = { name, labels in
            (Self.sanitized(name), labels.map { (Self.sanitized($0.0), $0.1) })
        }
        MetricsSystem.bootstrap(factory)
    }

    /// The Prometheus text exposition of every metric recorded so far.
    static func exposition() -> [UInt8] {
        Self.registry.emitToBuffer()
    }

    static func sanitized(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" ? $0 : "_" })
    }
}
