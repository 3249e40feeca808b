import AsyncHTTPClient
import Foundation
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// A client of `GET /v1/notifications/stream` on a live test app: reads the body as it arrives and
/// parses the Server-Sent Events, so a test can wait for the next one, see keep-alives, and see
/// the stream end.
final class EventStreamReader: Sendable {
    struct Event: Sendable {
        let type: String
        let id: String
        let data: [String: any Sendable]
    }

    private struct State {
        var events: [Event] = []
        var comments: [String] = []
        var retry: Int?
        var ended = false
        var status: Int?
    }

    private let state = Mutex(State())
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Opens the stream on the app behind `client` and starts reading; `status` tells whether it opened.
    static func open(_ client: any TestClientProtocol, token: String, lastEventID: String? = nil) async throws -> EventStreamReader {
        let port = try #require(client.port)
        let reader = EventStreamReader()
        let opened = AsyncStream.makeStream(of: Void.self)
        reader.task.withLock {
            $0 = Task {
                defer {
                    reader.state.withLock { $0.ended = true }
                    opened.continuation.finish()
                }
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/notifications/stream")
                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
                do {
                    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
                    reader.state.withLock { $0.status = Int(response.status.code) }
                    opened.continuation.finish()
                    var pending = ""
                    for try await chunk in response.body {
                        pending += String(buffer: chunk)
                        while let end = pending.range(of: "\n\n") {
                            reader.take(String(pending[..<end.lowerBound]))
                            pending.removeSubrange(..<end.upperBound)
                        }
                    }
                } catch {}
            }
        }
        for await _ in opened.stream {}
        return reader
    }

    /// The response's status (nil when the request failed).
    var status: Int? { self.state.withLock { $0.status } }
    var events: [Event] { self.state.withLock { $0.events } }
    var comments: [String] { self.state.withLock { $0.comments } }
    var retry: Int? { self.state.withLock { $0.retry } }
    var ended: Bool { self.state.withLock { $0.ended } }

    /// Waits until `count` events have arrived (or `timeout` passes) and returns them all.
    func waitForEvents(_ count: Int, timeout: Duration = .seconds(5)) async throws -> [Event] {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while self.events.count < count, clock.now < deadline, !self.ended { try await Task.sleep(for: .milliseconds(20)) }
        return self.events
    }

    /// Waits until the stream ends; whether it did within `timeout`.
    func waitForEnd(timeout: Duration = .seconds(5)) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while !self.ended, clock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return self.ended
    }

    /// Stops reading (the client goes away).
    func close() {
        self.task.withLock { $0?.cancel() }
    }

    private func take(_ block: String) {
        var type = "message"
        var id = ""
        var data = ""
        var comment: String?
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") {
                comment = String(line.dropFirst()).trimmingCharacters(in: .whitespaces)
            } else if line.hasPrefix("event: ") {
                type = String(line.dropFirst(7))
            } else if line.hasPrefix("id: ") {
                id = String(line.dropFirst(4))
            } else if line.hasPrefix("data: ") {
                data += String(line.dropFirst(6))
            } else if line.hasPrefix("retry: ") {
                let retry = Int(line.dropFirst(7))
                self.state.withLock { $0.retry = retry }
            }
        }
        if let comment {
            self.state.withLock { $0.comments.append(comment) }
            return
        }
        guard !data.isEmpty else { return }
        let object = (try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any]) ?? [:]
        let event = Event(type: type, id: id, data: object.mapValues { SendableJSON.wrap($0) })
        self.state.withLock { $0.events.append(event) }
    }
}

/// A JSON value as something `Sendable`: strings, numbers, booleans, null, and nested objects.
enum SendableJSON {
    static func wrap(_ value: Any) -> any Sendable {
        switch value {
        case let string as String: string
        case let number as NSNumber: number.doubleValue
        case let object as [String: Any]: object.mapValues { wrap($0) }
        default: "null"
        }
    }
}
