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
