import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import NIOCore

/// Writes JSON straight into a response buffer, for the responses that carry cards.
///
/// A feed page is twenty cards of fifteen members each; `JSONEncoder` spent about a quarter of
/// the server's CPU on it (boxing every value into its container tree first). This writer appends
/// bytes in one pass. The output is RFC 8259 JSON: strings are UTF-8 with `"`, `\` and control
/// characters escaped (nothing else, `/` included, as `JSONEncoder` with `.withoutEscapingSlashes`),
/// times in the contract's `2026-11-22T03:18:16.123Z` form, IDs as lowercase UUID strings.
///
/// Separators are automatic: call `key` before each member of an object and nothing between
/// array elements.
struct JSONWriter {
    private(set) var buffer: ByteBuffer
    /// Whether the next key or value needs a comma in front.
    private var needsComma = false

    init(capacity: Int = 1024) {
        self.buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    mutating func beginObject() {
        self.separate()
        self.buffer.writeInteger(UInt8(ascii: "{"))
        self.needsComma = false
    }

    mutating func endObject() {
        self.buffer.writeInteger(UInt8(ascii: "}"))
        self.needsComma = true
    }

    mutating func beginArray() {
        self.separate()
        self.buffer.writeInteger(UInt8(ascii: "["))
        self.needsComma = false
    }

    mutating func endArray() {
        self.buffer.writeInteger(UInt8(ascii: "]"))
        self.needsComma = true
    }

    /// A member's name; `name` is a plain ASCII identifier (never escaped).
    mutating func key(_ name: StaticString) {
        self.separate()
        self.buffer.writeInteger(UInt8(ascii: "\""))
        self.buffer.writeStaticString(name)
        self.buffer.writeInteger(UInt8(ascii: "\""))
        self.buffer.writeInteger(UInt8(ascii: ":"))
        self.needsComma = false
    }

    mutating func string(_ value: String) {
        self.separate()
        self.buffer.writeInteger(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { bytes in self.writeEscaped(bytes) }
        self.buffer.writeInteger(UInt8(ascii: "\""))
        self.needsComma = true
    }

    mutating func string(_ value: String?) {
        if let value { self.string(value) } else { self.null() }
    }

    mutating func int(_ value: Int) {
        self.separate()
        self.buffer.writeString(String(value))
        self.needsComma = true
    }

    /// A finite number as Swift prints it (`12.5`, `1200.0`); `null` for NaN and infinities, which JSON cannot express.
    mutating func double(_ value: Double?) {
        guard let value, value.isFinite else { return self.null() }
        self.separate()
        self.buffer.writeString(value.description)
        self.needsComma = true
    }

    mutating func bool(_ value: Bool) {
        self.separate()
        self.buffer.writeStaticString(value ? "true" : "false")
        self.needsComma = true
    }

    mutating func null() {
        self.separate()
        self.buffer.writeStaticString("null")
        self.needsComma = true
    }

    /// A UUID as the contract's IDs: 36 lowercase characters.
    mutating func uuid(_ value: UUID?) {
        guard let value else { return self.null() }
        self.separate()
        self.buffer.writeInteger(UInt8(ascii: "\""))
        let hex: StaticString = "0123456789abcdef"
        _ = withUnsafeBytes(of: value.uuid) { bytes in
            hex.withUTF8Buffer { digits in
                self.buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 36) { out in
                    var index = 0
                    for (offset, byte) in bytes.enumerated() {
                        if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                            out[index] = UInt8(ascii: "-")
                            index += 1
                        }
                        out[index] = digits[Int(byte >> 4)]
                        out[index + 1] = digits[Int(byte & 0x0F)]
                        index += 2
                    }
                    return 36
                }
            }
        }
        self.buffer.writeInteger(UInt8(ascii: "\""))
        self.needsComma = true
    }

    /// A time in the contract's form (RFC 3339, UTC, milliseconds), or `null`.
    mutating func timestamp(_ value: Date?) {
        guard let value else { return self.null() }
        self.separate()
        self.buffer.writeInteger(UInt8(ascii: "\""))
        self.buffer.writeString(JSON.timestamp(value))
        self.buffer.writeInteger(UInt8(ascii: "\""))
        self.needsComma = true
    }

    private mutating func separate() {
        if self.needsComma { self.buffer.writeInteger(UInt8(ascii: ",")) }
    }

    /// Copies runs of plain bytes in one go and escapes the few that JSON requires.
    private mutating func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        var start = 0
        for index in bytes.indices {
            let byte = bytes[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            if start < index { self.buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<index]))) }
            switch byte {
            case UInt8(ascii: "\""): self.buffer.writeStaticString("\\\"")
            case UInt8(ascii: "\\"): self.buffer.writeStaticString("\\\\")
            case UInt8(ascii: "\n"): self.buffer.writeStaticString("\\n")
            case UInt8(ascii: "\r"): self.buffer.writeStaticString("\\r")
            case UInt8(ascii: "\t"): self.buffer.writeStaticString("\\t")
            case 0x08: self.buffer.writeStaticString("\\b")
            case 0x0C: self.buffer.writeStaticString("\\f")
            default:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                self.buffer.writeStaticString("\\u00")
                self.buffer.writeInteger(hex[Int(byte >> 4)])
                self.buffer.writeInteger(hex[Int(byte & 0x0F)])
            }
            start = index + 1
        }
        if start < bytes.count { self.buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start...]))) }
    }
}

/// A response body written with `JSONWriter`.
protocol JSONWritable {
    func write(to writer: inout JSONWriter)
}

extension JSON {
    /// A JSON response whose body writes itself; `capacity` is a hint for the buffer's first size.
    static func response(
        _ status: HTTPResponse.Status, writing body: some JSONWritable, capacity: Int = 1024, headers: HTTPFields = [:]
    ) -> Response {
        var writer = JSONWriter(capacity: capacity)
        body.write(to: &writer)
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: writer.buffer))
    }
}
