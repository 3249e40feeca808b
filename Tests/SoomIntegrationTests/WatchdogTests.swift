import Foundation
import Logging
import SoomData
import Testing

/// A killed test run runs no exit handler; its throwaway PostgreSQL must not outlive it.
@Suite("Throwaway PostgreSQL watchdog")
struct WatchdogTests {
    @Test("once the watched process is gone (here: killed), the cluster is stopped and its folder removed")
    func stopsWhenGone() async throws {
        var logger = Logger(label: "soom-test-watchdog")
        logger.logLevel = .warning
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("soom-watchdog-\(getpid())-\(UUID().uuidString.prefix(6))")
        let cluster = try EmbeddedPostgres(dataDirectory: root.appendingPathComponent("postgres"), settings: ["fsync": "off"], logger: logger)
        ExitCleanup.register(cluster, removing: root)
        let configuration = try await cluster.start()
        #expect(await Self.reachable(configuration, logger: logger))

        let watched = Process()
        watched.executableURL = URL(fileURLWithPath: "/bin/sleep")
        watched.arguments = ["600"]
        try watched.run()
        try cluster.stopWhenGone(pid: watched.processIdentifier, removing: root)
        try await Task.sleep(for: .seconds(1.5))
        #expect(await Self.reachable(configuration, logger: logger), "stopped while the watched process lived")

        kill(watched.processIdentifier, SIGKILL)
        watched.waitUntilExit()
        var gone = false
        for _ in 0..<40 where !gone {
            try await Task.sleep(for: .milliseconds(250))
            gone = !FileManager.default.fileExists(atPath: root.path)
        }
        #expect(gone, "the folder is still there")
        #expect(await Self.reachable(configuration, logger: logger) == false, "the cluster still answers")
    }

    static func reachable(_ configuration: DatabaseConfiguration, logger: Logger) async -> Bool {
        (try? await TestPostgres.withConnection(configuration, logger: logger) { _ in true }) ?? false
    }
}
