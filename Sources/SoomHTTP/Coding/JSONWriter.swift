import Foundation
import Hummingbird
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// Writes JSON straight into a response buffer, for the responses that carry cards.
///
/// A feed page is twenty cards of fifteen members each; `JSONEncoder` spent about a quarter of
/// the server's CPU on it (boxing every value into its container tree first). This writer appends
/// bytes in one pass. The output is RFC 8259 JSON: strings are UTF-8 with `"`, `\` and control
/// characters escaped (nothing else, `/` included, as `JSONEncoder` with `.withoutEscapingSlashes`),
/// times in the contract's `2026-11-22T03:18:16.123Z` form, IDs as lowercase UUID strings.
///
/// Separators are automatic: write each member of an object with `member` (or `key` and then its
/// value), and nothing between array elements.
struct JSONWriter {
    /// The JSON so far. An array rather than a `ByteBuffer`: appending single bytes to an array is
    /// a few inlined instructions, while every `ByteBuffer` write checks uniqueness and exclusivity.
    private(set) var bytes: [UInt8] = []
    /// Whether the next key or value needs a comma in front.
    private var needsComma = false

    init(capacity: Int = 1024) {
        self.bytes.reserveCapacity(capacity)
    }

    /// The JSON as a buffer for a response body.
    var buffer: ByteBuffer { ByteBuffer(bytes: self.bytes) }

    mutating func beginObject() {
        self.separate()
        self.bytes.append(UInt8(ascii: "{"))
        self.needsComma = false
    }

    /// An object another writer opened with `beginObject` and wrote members into, left open:
    /// continue with `key` and close with `endObject`.
    mutating func openObject(_ written: [UInt8]) {
        self.separate()
        self.bytes.append(contentsOf: written)
        self.needsComma = true
    }

    mutating func endObject() {
        self.bytes.append(UInt8(ascii: "}"))
        self.needsComma = true
    }

    mutating func beginArray() {
        self.separate()
        self.bytes.append(UInt8(ascii: "["))
        self.needsComma = false
    }

    mutating func endArray() {
        self.bytes.append(UInt8(ascii: "]"))
        self.needsComma = true
    }

    /// A member's name; `name` is a plain ASCII identifier (never escaped).
    mutating func key(_ name: StaticString) {
        self.separate()
        self.bytes.append(UInt8(ascii: "\""))
        self.append(name)
        self.bytes.append(UInt8(ascii: "\""))
        self.bytes.append(UInt8(ascii: ":"))
        self.needsComma = false
    }

    /// A member's name that is not known at compile time (escaped like a string).
    mutating func key(_ name: String) {
        self.string(name)
        self.bytes.append(UInt8(ascii: ":"))
        self.needsComma = false
    }

    /// A member: its name (a plain ASCII identifier) and its value.
    mutating func member(_ name: StaticString, _ value: String) {
        self.key(name)
        self.string(value)
    }

    /// A member whose value is a string, or `null`.
    mutating func member(_ name: StaticString, _ value: String?) {
        self.key(name)
        self.string(value)
    }

    mutating func member(_ name: StaticString, _ value: Int) {
        self.key(name)
        self.int(value)
    }

    mutating func member(_ name: StaticString, _ value: Bool) {
        self.key(name)
        self.bool(value)
    }

    /// A member whose value is an ID (`uuid`), or `null`.
    mutating func member(_ name: StaticString, _ value: UUID?) {
        self.key(name)
        self.uuid(value)
    }

    /// A member whose value is a time (`timestamp`), or `null`.
    mutating func member(_ name: StaticString, _ value: Date?) {
        self.key(name)
        self.timestamp(value)
    }

    /// A member whose value is an object that writes itself, or `null`.
    mutating func member(_ name: StaticString, _ value: (some JSONWritable)?) {
        self.key(name)
        if let value { value.write(to: &self) } else { self.null() }
    }

    /// Ends a line of JSON Lines: a newline after the value.
    mutating func newline() {
        self.bytes.append(UInt8(ascii: "\n"))
        self.needsComma = false
    }

    mutating func string(_ value: String) {
        self.separate()
        self.bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in self.appendEscaped(utf8) }
        self.bytes.append(UInt8(ascii: "\""))
        self.needsComma = true
    }

    mutating func string(_ value: String?) {
        if let value { self.string(value) } else { self.null() }
    }

    mutating func int(_ value: Int) {
        self.separate()
        self.bytes.append(contentsOf: String(value).utf8)
        self.needsComma = true
    }

    /// A finite number as Swift prints it (`12.5`, `1200.0`); `null` for NaN and infinities, which JSON cannot express.
    mutating func double(_ value: Double?) {
        guard let value, value.isFinite else { return self.null() }
        self.separate()
        self.bytes.append(contentsOf: value.description.utf8)
        self.needsComma = true
    }

    mutating func bool(_ value: Bool) {
        self.separate()
        self.append(value ? "true" : "false")
        self.needsComma = true
    }

    mutating func null() {
        self.separate()
        self.append("null")
        self.needsComma = true
    }

    /// A UUID as the contract's IDs: 36 lowercase characters.
    mutating func uuid(_ value: UUID?) {
        guard let value else { return self.null() }
        self.separate()
        self.bytes.append(UInt8(ascii: "\""))
        withUnsafeBytes(of: value.uuid) { raw in
            for (offset, byte) in raw.enumerated() {
                if offset == 4 || offset == 6 || offset == 8 || offset == 10 { self.bytes.append(UInt8(ascii: "-")) }
                self.bytes.append(Self.hexDigit(byte >> 4))
                self.bytes.append(Self.hexDigit(byte & 0x0F))
            }
        }
        self.bytes.append(UInt8(ascii: "\""))
        self.needsComma = true
    }

    /// A time in the contract's form (RFC 3339, UTC, milliseconds), or `null`.
    mutating func timestamp(_ value: Date?) {
        guard let value else { return self.null() }
        self.separate()
        self.bytes.append(UInt8(ascii: "\""))
        JSON.appendTimestamp(value, to: &self.bytes)
        self.bytes.append(UInt8(ascii: "\""))
        self.needsComma = true
    }

    private mutating func separate() {
        if self.needsComma { self.bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { self.bytes.append(contentsOf: $0) }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? 0x30 + value : 0x57 + value
    }

    /// Copies runs of plain bytes in one go and escapes the few that JSON requires.
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var start = 0
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            if start < index { self.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index])) }
            switch byte {
            case UInt8(ascii: "\""): self.append("\\\"")
            case UInt8(ascii: "\\"): self.append("\\\\")
            case UInt8(ascii: "\n"): self.append("\\n")
            case UInt8(ascii: "\r"): self.append("\\r")
            case UInt8(ascii: "\t"): self.append("\\t")
            case 0x08: self.append("\\b")
            case 0x0C: self.append("\\f")
            default:
                self.append("\\u00")
                self.bytes.append(Self.hexDigit(byte >> 4))
                self.bytes.append(Self.hexDigit(byte & 0x0F))
            }
            start = index + 1
        }
        if start < utf8.count { self.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...])) }
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
