/// Whether the instance can serve: what `GET /readyz` asks. Implemented by the database
/// (`Database`: a trivial query within two seconds).
public protocol ReadinessProbe: Sendable {
    /// Whether what the instance needs answers now. Never throws: unreachable is `false`.
    func isReachable() async -> Bool
}
