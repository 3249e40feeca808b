import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import SoomApp
import SoomData
import Synchronization
import Testing

@testable import SoomHTTP

/// Graceful shutdown as `soom serve` runs it (a `ServiceGroup` told to shut down, as SIGTERM does).
@Suite("Graceful shutdown")
struct ShutdownTests {
    /// A fresh database with `accounts` accounts, and the app running on it as `soom serve` runs it
    /// (a `ServiceGroup`), without background jobs; its port once it listens.
    static func start(accounts: Int, connections: Int) async throws -> (
        database: DatabaseConfiguration, test: TestDatabase, tokens: [String], group: ServiceGroup, running: Task<Void, any Error>, port: Int
    ) {
        var database = try await TestPostgres.shared.makeDatabase()
        database.maximumConnections = connections
        let test = TestDatabase(configuration: database)
        let tokens = try await test.makeAccounts(accounts)
        let port = PortBox()
        var configuration = AppConfiguration(
            hostname: "127.0.0.1", port: 0, database: database, logLevel: .warning, migrateOnStart: false, backgroundJobs: false, rateLimits: nil)
        configuration.onServerRunning = { port.set($0) }
        let app = try buildApplication(configuration)
        let group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "soom-shutdown-test")))
        let running = Task { try await group.run() }
        return (database, test, tokens, group, running, try await port.wait())
    }

    @Test("shutting down under a stream of posts: every acknowledged card is stored, and it ends within the bound")
    func shutdownUnderLoad() async throws {
        try await TestAppSlots.withSlot {
            let (database, test, tokens, group, running, listening) = try await Self.start(accounts: 8, connections: 6)

            let acknowledged = AcknowledgedIDs()
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            let posters = Task {
                await withTaskGroup(of: Void.self) { posters in
                    for (index, token) in tokens.enumerated() {
                        posters.addTask {
                            var request = HTTPClientRequest(url: "http://127.0.0.1:\(listening)/v1/cards")
                            request.method = .POST
                            request.headers.add(name: "Authorization", value: "Bearer \(token)")
                            request.headers.add(name: "Content-Type", value: "application/json")
                            for number in 0..<10_000 {
                                request.body = .bytes(
                                    ByteBuffer(string: #"{"content":"종료 \#(index)-\#(number)","background":{"default":"sea-calm"}}"#))
                                do {
                                    let response = try await client.execute(request, timeout: .seconds(2))
                                    let body = try await response.body.collect(upTo: 1 << 16)
                                    guard response.status == .created else { return }
                                    let object = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]
                                    if let id = (object?["id"] as? String).flatMap(UUID.init(uuidString:)) {
                                        acknowledged.append(id)
                                    }
                                } catch {
                                    return  // the server has stopped accepting: this request was not acknowledged
                                }
                            }
                        }
                    }
                }
            }
            // Let the stream get going: at least 800 ms, and until a post is acknowledged (on a
            // machine busy with the rest of the suite the first posts can take longer than that).
            try await Task.sleep(for: .milliseconds(800))
            let waitingSince = ContinuousClock.now
            while acknowledged.ids.isEmpty, ContinuousClock.now - waitingSince < .seconds(10) { try await Task.sleep(for: .milliseconds(20)) }
            let before = acknowledged.ids.count
            let started = ContinuousClock.now
            await group.triggerGracefulShutdown()
            try await running.value
            let took = started.duration(to: .now)
            await posters.value
            let drained = started.duration(to: .now)
            try await client.shutdown()

            let ids = acknowledged.ids
            print("shutdown: \(before) acknowledged before, \(ids.count) in all, shutdown took \(took), clients done after \(drained)")
            #expect(before > 0, "no post was acknowledged before the shutdown")
            #expect(took < .seconds(10), "shutdown took \(took), clients done after \(drained)")
            #expect(try await test.scalar("SELECT count(*)::int FROM cards WHERE id = ANY (\(ids))") == ids.count)
            try await TestPostgres.shared.drop(database)
        }
    }

    @Test("open notification streams end at once when the server shuts down, and do not delay it")
    func streamsEndOnShutdown() async throws {
        try await TestAppSlots.withSlot {
            let (database, _, tokens, group, running, listening) = try await Self.start(accounts: 3, connections: 4)
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            let ended = AcknowledgedIDs()
            var streams: [Task<Void, Never>] = []
            for token in tokens {
                let (openedStream, opened) = AsyncStream.makeStream(of: Void.self)
                streams.append(
                    Task {
                        var request = HTTPClientRequest(url: "http://127.0.0.1:\(listening)/v1/notifications/stream")
                        request.headers.add(name: "Authorization", value: "Bearer \(token)")
                        // The listener may still be connecting: a 503 is tried again.
                        for _ in 0..<50 {
                            guard let response = try? await client.execute(request, timeout: .seconds(60)) else { break }
                            guard response.status == .ok else {
                                try? await Task.sleep(for: .milliseconds(100))
                                continue
                            }
                            opened.finish()
                            do { for try await _ in response.body {} } catch {}
                            ended.append(UUID())
                            return
                        }
                        opened.finish()
                    })
                for await _ in openedStream {}
            }
            let started = ContinuousClock.now
            await group.triggerGracefulShutdown()
            try await running.value
            let took = started.duration(to: .now)
            for stream in streams { await stream.value }
            try await client.shutdown()
            #expect(ended.ids.count == tokens.count, "every stream was open, and ended")
            #expect(took < .seconds(3), "shutdown took \(took)")
            try await TestPostgres.shared.drop(database)
        }
    }
}

/// The port the server listens on, once it does.
final class PortBox: Sendable {
    private let port = Mutex<Int?>(nil)

    func set(_ value: Int) { self.port.withLock { $0 = value } }

    func wait() async throws -> Int {
        for _ in 0..<200 {
            if let port = self.port.withLock({ $0 }) { return port }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw CancellationError()
    }
}

/// Ids of the cards the server acknowledged (201), from many clients at once.
final class AcknowledgedIDs: Sendable {
    private let storage = Mutex<[UUID]>([])
    func append(_ id: UUID) { self.storage.withLock { $0.append(id) } }
    var ids: [UUID] { self.storage.withLock { $0 } }
}
