import SoomDomain

/// `GET /readyz`'s question, answered by PostgreSQL: a trivial query within two seconds.
extension Database: ReadinessProbe {
    public func isReachable() async -> Bool {
        await self.isReachable(timeout: .seconds(2))
    }
}
