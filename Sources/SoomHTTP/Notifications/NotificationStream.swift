import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle
import SoomDomain

/// An open `GET /v1/notifications/stream`: Server-Sent Events, written as they come.
///
/// First `retry: 2000` (how long a client waits before reconnecting), then the replay, then each
/// new notification as `event: notification`, `id: <id>`, `data: <Notification JSON>`; a
/// `: keep-alive` comment every `keepAlive` while nothing else is sent. It ends when the stream is
/// closed (`LiveNotifications`: sign-out, withdrawal, a sixth stream, a lost channel), when the
/// session expires, when the client goes away, and at once when the server begins to shut down.
struct NotificationStream: Sendable, Equatable {
    let stream: LiveNotifications.Stream
    let replay: [AccountNotification]
    /// When the caller's session expires.
    let closesAt: Date
    let keepAlive: Duration

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.stream.id == rhs.stream.id && lhs.replay == rhs.replay && lhs.closesAt == rhs.closesAt && lhs.keepAlive == rhs.keepAlive
    }

    func response() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        // A proxy in front (nginx) must pass each event on at once.
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in try await self.write(to: &writer) })
    }

    private enum Output: Sendable {
        case notification(AccountNotification)
        case keepAlive
    }

    private func write(to writer: inout any ResponseBodyWriter) async throws {
        let (outputs, sink) = AsyncStream.makeStream(of: Output.self, bufferingPolicy: .bufferingNewest(256))
        let (events, keepAlive, closesAt) = (self.stream.events, self.keepAlive, self.closesAt)
        let replayed = Set(self.replay.map(\.id))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await notification in events where !replayed.contains(notification.id) { sink.yield(.notification(notification)) }
                sink.finish()
            }
            group.addTask {
                while true {
                    try await Task.sleep(for: keepAlive)
                    sink.yield(.keepAlive)
                }
            }
            group.addTask {
                // In steps of an hour at most: a session's expiry may be years away.
                while case let left = closesAt.timeIntervalSinceNow, left > 0 { try await Task.sleep(for: .seconds(min(left, 3600))) }
                sink.finish()
            }
            defer { group.cancelAll() }
            try await withGracefulShutdownHandler {
                try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
                for notification in self.replay { try await writer.write(Self.event(notification)) }
                for await output in outputs {
                    switch output {
                    case .notification(let notification): try await writer.write(Self.event(notification))
                    case .keepAlive: try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                    }
                }
            } onGracefulShutdown: {
                sink.finish()
            }
        }
        try await writer.finish(nil)
    }

    /// One notification as an event. The JSON is one line: `JSONWriter` escapes every control character.
    static func event(_ notification: AccountNotification) -> ByteBuffer {
        var json = JSONWriter(capacity: 512)
        NotificationBody(notification: notification).write(to: &json)
        var buffer = ByteBuffer()
        buffer.reserveCapacity(json.bytes.count + 96)
        buffer.writeString("event: notification\nid: \(notification.id.uuidString.lowercased())\ndata: ")
        buffer.writeBytes(json.bytes)
        buffer.writeString("\n\n")
        return buffer
    }
}
