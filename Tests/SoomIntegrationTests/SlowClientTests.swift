import Foundation
import HummingbirdTesting
import SoomApp
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Slow and idle clients: a connection that sends nothing, or never finishes its request head,
/// is closed after the header timeout; one idle between requests after the idle timeout; and the
/// server serves everyone else meanwhile.
@Suite("Slow and idle connections")
struct SlowClientTests {
    @Test(
        "silent and trickling connections are closed after the header timeout; idle keep-alive ones after the idle timeout; others are served meanwhile"
    )
    func slowClients() async throws {
        // Short, but not so short that a server slowed by the rest of the suite running at once
        // misses a head that did arrive.
        let timeouts: @Sendable (inout AppConfiguration) -> Void = {
            $0.requestHeadTimeout = .seconds(2)
            $0.idleTimeout = .seconds(3)
        }
        try await withTestApp(adjust: timeouts) { client, _ in
            // The test client is used only for its port.
            let port = try #require(client.port)
            // Fifty connections that send nothing, and one that trickles an unfinished head.
            let silent = try (0..<50).map { _ in try RawConnection(port: port) }
            let trickling = try RawConnection(port: port)
            try trickling.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
            // Meanwhile the server answers (each on a connection of its own: see the end).
            for _ in 0..<5 {
                let answer = try await Self.healthz(port: port)
                #expect(answer.hasPrefix("HTTP/1.1 200"), "answered: \(answer.prefix(200))")
            }
            // Closed by the server within the header timeout (plus slack), not by us.
            for connection in silent + [trickling] {
                #expect(await connection.closes(within: 8), "a silent connection stayed open")
            }
            // A connection that made one request and then idles is closed by the idle timeout.
            let keepAlive = try RawConnection(port: port)
            try keepAlive.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await keepAlive.closes(within: 1.5) == false, "closed before the idle timeout")
            #expect(await keepAlive.closes(within: 8), "an idle keep-alive connection stayed open")
            // And the server still answers. On a new connection: a pooled keep-alive connection
            // (the test client's) idles past the timeout here too, and a request racing the
            // server's close of it is reset, as with any server that closes idle connections.
            let answer = try await Self.healthz(port: port)
            #expect(answer.hasPrefix("HTTP/1.1 200"), "answered: \(answer.prefix(200))")
        }
    }

    @Test("a body that trickles in is 408 request_timeout after the grace, and its connection closes; a steady one is served")
    func tricklingBody() async throws {
        let shortGrace: @Sendable (inout AppConfiguration) -> Void = { $0.requestBodyGrace = .seconds(2) }
        try await withTestApp(adjust: shortGrace) { client, _ in
            let port = try #require(client.port)
            let slow = try RawConnection(port: port)
            try slow.send("POST /v1/nicknames/validation HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{")
            let socket = slow.socket
            let trickle = Task {
                for _ in 0..<60 {
                    try await Task.sleep(for: .milliseconds(400))
                    _ = Glibc.send(socket, [UInt8(ascii: " ")], 1, Int32(MSG_NOSIGNAL))
                }
            }
            let answer = await slow.response(within: 20)
            trickle.cancel()
            #expect(answer.hasPrefix("HTTP/1.1 408"), "answered: \(answer.prefix(300))")
            #expect(answer.contains("request_timeout"))
            // A body that arrives in pieces, but steadily, is served.
            let steady = try RawConnection(port: port)
            let body = "{\"nickname\": \"\(String(repeating: " ", count: 3000))고래\"}"
            try steady.send(
                "POST /v1/nicknames/validation HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
            )
            let bytes = Array(body.utf8)
            for start in stride(from: 0, to: bytes.count, by: 1_500) {
                try steady.send(String(decoding: bytes[start..<min(start + 1_500, bytes.count)], as: UTF8.self))
                try await Task.sleep(for: .milliseconds(100))
            }
            let served = await steady.response(within: 20)
            #expect(served.hasPrefix("HTTP/1.1 200"), "answered: \(served.prefix(300))")
        }
    }

    @Test("a malformed chunked body is 400 invalid_request (or a closed connection), never a 500, and is not logged as an error")
    func malformedChunks() async throws {
        try await withTestApp { client, _ in
            let port = try #require(client.port)
            for bad in ["zz\r\nxx\r\n0\r\n\r\n", "5\r\nab\r\n0\r\n\r\n", "-1\r\n\r\n", "ffffffffffffffffffff\r\n"] {
                let connection = try RawConnection(port: port)
                try connection.send(
                    "POST /v1/nicknames/validation HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + bad)
                let answer = await connection.response(within: 5)
                #expect(answer.isEmpty || answer.hasPrefix("HTTP/1.1 400"), "\(bad.debugDescription): \(answer.prefix(200))")
            }
            let metrics = String(buffer: try await client.send(.get, "/metrics", headers: [.authorization: "Bearer \(testMetricsToken)"]).body)
            #expect(!metrics.contains("http_response_status_code=\"500\""), "a malformed body was counted as a 500")
        }
    }

    @Test("one client address holds at most its limit of connections; the next is closed at once, and others are served")
    func connectionsPerAddress() async throws {
        let limit: @Sendable (inout AppConfiguration) -> Void = { $0.connectionsPerAddress = 8 }
        try await withTestApp(adjust: limit) { client, _ in
            let port = try #require(client.port)
            // The test client holds connections of its own from this address: fill up to the limit.
            var open: [RawConnection] = []
            for _ in 0..<12 { open.append(try RawConnection(port: port)) }
            var closed = 0
            for connection in open where await connection.closes(within: 0.5) { closed += 1 }
            #expect(closed >= 4, "only \(closed) of 12 connections were refused with a limit of 8")
            open.removeAll()
            // Once they are gone, new connections are served again.
            try await Task.sleep(for: .milliseconds(300))
            let answer = try await Self.healthz(port: port)
            #expect(answer.hasPrefix("HTTP/1.1 200"), "answered: \(answer.prefix(200))")
        }
    }

    /// `GET /healthz` on a new connection, closed after the answer: the answer as text.
    static func healthz(port: Int) async throws -> String {
        let connection = try RawConnection(port: port)
        try connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return await connection.response(within: 15)
    }
}

/// A plain TCP connection to the test server (blocking, for these few checks).
final class RawConnection {
    let socket: Int32

    init(port: Int) throws {
        self.socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(self.socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    deinit { close(self.socket) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard Glibc.send(self.socket, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { throw POSIXError(.EPIPE) }
    }

    /// `waitForClose` on a thread of its own: the blocking wait must not hold one of the few
    /// threads every test's tasks share.
    func closes(within seconds: Double) async -> Bool {
        let socket = self.socket
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: Self.waitForClose(socket, within: seconds)) }
        }
    }

    /// What the peer sends until it closes the connection or `seconds` pass, as text.
    func response(within seconds: Double) async -> String {
        let socket = self.socket
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let end = Date().addingTimeInterval(seconds)
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while Date() < end {
                    var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                    guard poll(&poller, 1, Int32(max(1, end.timeIntervalSinceNow * 1000))) > 0 else { continue }
                    let count = recv(socket, &buffer, buffer.count, 0)
                    if count <= 0 { break }
                    received += buffer[..<count]
                }
                continuation.resume(returning: String(decoding: received, as: UTF8.self))
            }
        }
    }

    /// Whether the peer closes the connection within `seconds` (any response bytes are read and skipped).
    static func waitForClose(_ socket: Int32, within seconds: Double) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < end {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(1, end.timeIntervalSinceNow * 1000))
            guard poll(&poller, 1, left) > 0 else { continue }
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { return true }
        }
        return false
    }
}
