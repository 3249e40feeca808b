import Foundation
#if canImport(Glibc)
import Glibc
#endif
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
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    static let decoder = JSONDecoder()

    /// `2026-11-22T03:18:16.123Z`: RFC 3339, UTC, milliseconds (truncated). Written digit by digit:
    /// a feed page formats forty of these, and the general-purpose formatters are far slower.
    static func timestamp(_ date: Date) -> String {
        // Whole microseconds first, so that binary fractions like 0.001 do not floor one millisecond low.
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let millis = micros >= 0 ? micros / 1000 : (micros - 999) / 1000
        let (seconds, fraction) = millis.quotientAndRemainder(dividingBy: 1000)
        var time = time_t(fraction < 0 ? seconds - 1 : seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let milliseconds = Int(fraction < 0 ? fraction + 1000 : fraction)
        var bytes = [UInt8](repeating: 0, count: 24)
        func put(_ value: Int, _ width: Int, at offset: Int) {
            var value = value
            for index in stride(from: offset + width - 1, through: offset, by: -1) {
                bytes[index] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
                value /= 10
            }
        }
        put(Int(parts.tm_year) + 1900, 4, at: 0)
        bytes[4] = 0x2D
        put(Int(parts.tm_mon) + 1, 2, at: 5)
        bytes[7] = 0x2D
        put(Int(parts.tm_mday), 2, at: 8)
        bytes[10] = 0x54
        put(Int(parts.tm_hour), 2, at: 11)
        bytes[13] = 0x3A
        put(Int(parts.tm_min), 2, at: 14)
        bytes[16] = 0x3A
        put(Int(parts.tm_sec), 2, at: 17)
        bytes[19] = 0x2E
        put(milliseconds, 3, at: 20)
        bytes[23] = 0x5A
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A JSON response with the contract's content type.
    static func response(_ status: HTTPResponse.Status, _ body: some Encodable, headers: HTTPFields = [:]) throws -> Response {
        let data = try Self.encoder.encode(body)
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
