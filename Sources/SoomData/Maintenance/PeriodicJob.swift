import Logging
import ServiceLifecycle
import SoomDomain

/// Background work the application runs every `interval` (the popular ranking, the story sweep).
///
/// A service of the application's service group: it starts with the server, stops on graceful
/// shutdown, and logs (never hides) a failed round before trying again next time. Safe with several
/// server instances: each job's SQL is idempotent or takes an advisory lock.
public struct PeriodicJob: Service {
    public let name: String
    let interval: Duration
    let logger: Logger
    let startAfter: OneTimeSignal
    let work: @Sendable () async throws -> Void

    /// - Parameter startAfter: the first round waits for it (the schema must be migrated first).
    public init(
        name: String, every interval: Duration, startAfter: OneTimeSignal, logger: Logger, work: @escaping @Sendable () async throws -> Void
    ) {
        self.name = name
        self.interval = interval
        self.startAfter = startAfter
        self.logger = logger
        self.work = work
    }

    public func run() async throws {
        // Nothing here throws: a stop (graceful shutdown cancels this task) ends the loop quietly,
        // and a failed round is logged and retried. Waiting for the start signal polls so that a
        // stop before it fires ends the job too.
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                guard self.startAfter.isSignalled else {
                    try? await Task.sleep(for: .milliseconds(100))
                    continue
                }
                do {
                    try await self.work()
                } catch is CancellationError {
                    return
                } catch {
                    self.logger.warning(
                        "background job failed; retrying next round", metadata: ["job": "\(self.name)", "error": "\(loggableDescription(of: error))"])
                }
                try? await Task.sleep(for: self.interval)
            }
        }
    }
}
