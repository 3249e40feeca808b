import Foundation
import Hummingbird
import NIOCore

/// The JSON conventions of the contract: RFC 3339 UTC times with milliseconds.
enum JSON {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(JSON.timestamp(date))
        }
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    static let decoder = JSONDecoder()

    private static let timeStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    /// `2026-11-22T03:18:16.123Z`
    static func timestamp(_ date: Date) -> String {
        date.formatted(Self.timeStyle)
    }

    /// A JSON response with the contract's content type.
    static func response(_ status: HTTPResponse.Status, _ body: some Encodable, headers: HTTPFields = [:]) throws -> Response {
        let data = try Self.encoder.encode(body)
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
