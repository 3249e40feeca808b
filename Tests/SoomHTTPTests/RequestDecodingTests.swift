import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SoomDomain
import Testing

@testable import SoomHTTP

/// Requests as the routes read them: query parameters, cursors and JSON bodies, refused with the
/// contract's errors before any work.
@Suite("Request decoding")
struct RequestDecodingTests {
    static func request(_ path: String, body: String = "") -> Request {
        Request(
            head: HTTPRequest(method: .get, scheme: "http", authority: "soom.test", path: path),
            body: RequestBody(buffer: ByteBuffer(string: body)))
    }

    static func failure(_ body: () throws -> Void) -> APIError? {
        do {
            try body()
            return nil
        } catch let error as SoomError {
            return error.apiError
        } catch let error as APIError {
            return error
        } catch {
            return nil
        }
    }

    @Test("limit and cursor: a limit that is not a whole number is 400, one out of 1…50 is 422")
    func pages() throws {
        let page = try Self.request("/v1/feeds/latest?limit=7&cursor=abc").pageRequest()
        #expect(page.limit == 7 && page.cursor == "abc")
        #expect(try Self.request("/v1/feeds/latest").pageRequest().cursor == nil)
        let notANumber = Self.failure { _ = try Self.request("/v1/feeds/latest?limit=seven").pageRequest() }
        #expect(notANumber?.status == .badRequest && notANumber?.field == "limit")
        #expect(Self.failure { _ = try Self.request("/v1/feeds/latest?limit=51").pageRequest() }?.status == .unprocessableContent)
        #expect(Self.failure { _ = try Self.request("/v1/feeds/latest?limit=0").pageRequest() }?.status == .unprocessableContent)
    }

    @Test("a required number: missing or not a finite number is 400 naming the parameter")
    func numbers() throws {
        #expect(try Self.request("/v1/feeds/nearby?latitude=37.5").requiredNumber("latitude") == 37.5)
        for path in ["/v1/feeds/nearby", "/v1/feeds/nearby?latitude=north", "/v1/feeds/nearby?latitude=nan", "/v1/feeds/nearby?latitude=inf"] {
            let error = Self.failure { _ = try Self.request(path).requiredNumber("latitude") }
            #expect(error?.status == .badRequest && error?.field == "latitude", "\(path)")
        }
    }

    @Test("cursors go round and are bound to their feed; anything else is 400 invalid_cursor")
    func cursors() throws {
        let position = FeedPosition(createdAtMicros: 1_700_000_000_000_000, id: UUID())
        let cursor = FeedCursor.encode(position, for: .latest)
        #expect(try FeedCursor.decode(cursor, for: .latest) == position)
        for (text, feed) in [(cursor, Feed.author(UUID())), ("not a cursor", .latest), (String(repeating: "A", count: 600), .latest)] {
            let error = Self.failure { _ = try FeedCursor.decode(text, for: feed) }
            #expect(error?.status == .badRequest && error?.code == "invalid_cursor")
        }
    }

    struct Body: Decodable {
        let text: String
    }

    @Test("JSON bodies: required, well-formed, of the right types, at most 64 KiB")
    func bodies() async throws {
        #expect(try await Self.request("/", body: #"{"text": "안녕"}"#).decodeJSON(as: Body.self).text == "안녕")
        #expect(try await Self.request("/", body: " ").decodeJSON(as: Body.self, allowEmpty: true) == nil)
        for (body, field) in [("", nil), ("{", nil), (#"{"text": 1}"#, "text"), (#"{"other": "x"}"#, "text")] as [(String, String?)] {
            do {
                _ = try await Self.request("/", body: body).decodeJSON(as: Body.self)
                Issue.record("\(body) was accepted")
            } catch let error as SoomError {
                #expect(error.apiError.status == .badRequest, "\(body)")
                if let field { #expect(error.field == field, "\(body)") }
            }
        }
        let large = #"{"text": ""# + String(repeating: "a", count: 70 * 1024) + #""}"#
        await #expect(throws: APIError.payloadTooLarge(limit: Request.maximumJSONBodySize)) {
            _ = try await Self.request("/", body: large).decodeJSON(as: Body.self)
        }
    }
}
