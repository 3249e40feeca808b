import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import SoomDomain
import Synchronization
import Testing

@testable import SoomHTTP

@Suite("Metrics and logs")
struct ObservabilityTests {
    @Test("/metrics: Prometheus text with every named series, moving as requests come in")
    func metrics() async throws {
        var limits = RateLimits()
        limits.posting = RateLimits.Rule(count: 1, window: 600)
        try await withTestApp(rateLimits: limits) { client, database in
            let tokens = try await database.makeAccounts(2)
            let before = try await client.metric("soom_cards_posted{kind=\"card\"}")
            let likesBefore = try await client.metric("soom_likes")
            let card = try await client.postCard(tokens[0], "측정")
            let refused = try await client.send(.post, "/v1/cards", json: ["content": "또", "background": ["default": "sea-calm"]], token: tokens[0])
            #expect(refused.status == .tooManyRequests)
            #expect(try await client.send(.put, "/v1/cards/\(card.id)/like", token: tokens[1]).status == .ok)
            _ = try await TestDevice.c.register(client)

            let response = try await client.send(.get, "/metrics", headers: [.authorization: "Bearer \(testMetricsToken)"])
            #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            #expect(response.headers[.rateLimitLimit] == nil)
            let text = String(buffer: response.body)
            for series in [
                "hb_requests{http_route=\"/v1/cards\",http_request_method=\"POST\",http_response_status_code=\"201\"}",
                "hb_requests{http_route=\"/v1/cards\",http_request_method=\"POST\",http_response_status_code=\"429\"}",
                "http_server_request_duration_bucket{http_route=\"/v1/cards/{id}/like\"", "http_server_active_requests",
                "soom_db_operations_in_flight", "soom_db_pool_size", "soom_db_operation_duration_count{kind=\"statement\",outcome=\"ok\"}",
                "soom_rate_limit_rejections{limit=\"posting\"}",
                "soom_likes", "soom_sign_ups", "soom_cards_posted{kind=\"card\"}", "soom_session_cache_listening",
            ] {
                #expect(text.contains(series), "missing \(series)")
            }
            #expect(try await client.metric("soom_cards_posted{kind=\"card\"}") >= before + 1)
            #expect(try await client.metric("soom_likes") >= likesBefore + 1)
            // One counter per fact: the business counters, not a second count of reactor mutations.
            #expect(!text.contains("soom_reactor_mutations"))
            #expect(try await client.metric("soom_rate_limit_rejections{limit=\"posting\"}") >= 1)
        }
    }

    @Test("one log line per request with route, status, duration and X-Request-ID; no token, key, signature or address in any")
    func requestLog() async throws {
        CapturedLogs.install()
        try await withTestApp(logLevel: .debug) { client, _ in
            let marker = "trace-\(UUID().uuidString)"
            var headers = HTTPFields()
            headers[.xRequestID] = marker
            let body = try await TestDevice(key: TestDevice.keys[3]).proof(client, purpose: "register")
            let registered = try await client.send(.post, "/v1/accounts", json: body, headers: headers)
            #expect(registered.status == .created && registered.headers[.xRequestID] == marker)
            let token = try #require((try registered.object["session"] as? [String: Any])?["token"] as? String)
            let missing = try await client.send(.get, "/v1/cards/\(UUID())", token: token, headers: headers)
            #expect(missing.status == .notFound && missing.headers[.xRequestID] == marker)
            // Without one, the server makes an ID; a malformed one is replaced.
            let generated = try await client.send(.get, "/v1/me", token: token)
            #expect(generated.headers[.xRequestID].map { !$0.isEmpty && $0 != marker } == true)
            headers[.xRequestID] = "bad id with spaces"
            #expect(try await client.send(.get, "/v1/me", token: token, headers: headers).headers[.xRequestID] != "bad id with spaces")

            let mine = CapturedLogs.lines.filter { $0.contains(marker) }
            let requests = mine.filter { $0.contains("\"message\":\"request\"") }
            #expect(requests.count == 2, "\(mine)")
            let line = try #require(requests.first { $0.contains("\"http.route\":\"/v1/cards/{id}\"") })
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let metadata = try #require(object["metadata"] as? [String: Any])
            #expect(object["level"] as? String == "info" && object["time"] is String)
            #expect(metadata["http.method"] as? String == "GET" && metadata["http.status"] as? String == "404")
            #expect(Double(metadata["duration_ms"] as? String ?? "") != nil && metadata["hb.request.id"] as? String == marker)
            // The debug run logged the reactors' mutations too; none of it carries a secret.
            #expect(mine.contains { $0.contains("reactor mutations") })
            let key = try #require((body["publicKey"] as? String)?.split(separator: "\n").dropFirst().first.map(String.init))
            let signature = try #require(body["signature"] as? String)
            for line in CapturedLogs.lines {
                #expect(!line.contains(token) && !line.contains(key) && !line.contains(signature), "a secret in: \(line.prefix(300))")
                if line.contains("hb.request.id") { #expect(!line.contains("127.0.0.1"), "an address in: \(line.prefix(300))") }
            }
        }
    }

    @Test("JSON log lines escape what they carry and nest metadata")
    func jsonLines() throws {
        let written = LockedLines()
        var handler = JSONLogHandler(label: "test") { written.append(String(decoding: $0, as: UTF8.self)) }
        handler.logLevel = .trace
        handler[metadataKey: "fixed"] = "value"
        handler.log(
            event: LogEvent(
                level: .notice, message: "quote \" backslash \\ newline \n nul \u{0} 한글", metadata: ["list": ["a", "1"], "map": ["k": "v"]],
                source: "Tests", file: #fileID, function: #function, line: #line))
        let line = try #require(written.lines.first)
        #expect(line.hasSuffix("}\n") && line.filter { $0 == "\n" }.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["message"] as? String == "quote \" backslash \\ newline \n nul \u{0} 한글")
        #expect(object["level"] as? String == "notice" && object["label"] as? String == "test" && object["source"] as? String == "Tests")
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["fixed"] as? String == "value" && metadata["list"] as? [String] == ["a", "1"])
        #expect((metadata["map"] as? [String: String]) == ["k": "v"])
        // The time is now, in the contract's form.
        let time = try #require(object["time"] as? String)
        let logged = try #require(try? Date(time, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        #expect(time.count == 24 && abs(logged.timeIntervalSinceNow) < 5)
    }

    @Test("a request's duration is logged in milliseconds with two decimals")
    func durationFormat() {
        #expect(RequestLogMiddleware<AppRequestContext>.milliseconds(.milliseconds(12) + .microseconds(345)) == "12.34")
        #expect(RequestLogMiddleware<AppRequestContext>.milliseconds(.microseconds(5)) == "0.00")
        #expect(RequestLogMiddleware<AppRequestContext>.milliseconds(.seconds(2) + .milliseconds(1) + .microseconds(70)) == "2001.07")
        #expect(RequestLogMiddleware<AppRequestContext>.milliseconds(.zero) == "0.00")
    }
}

/// Lines written by a log handler under test.
final class LockedLines: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ line: String) { self.storage.withLock { $0.append(line) } }
    var lines: [String] { self.storage.withLock { $0 } }
}

extension TestClientProtocol {
    /// The value of one series (exact name and labels) in `/metrics`, 0 when absent.
    func metric(_ series: String) async throws -> Double {
        let text = String(buffer: try await self.send(.get, "/metrics", headers: [.authorization: "Bearer \(testMetricsToken)"]).body)
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1)) ?? 0
        }
        return 0
    }
}
