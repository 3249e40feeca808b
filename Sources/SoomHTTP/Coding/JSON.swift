import Foundation
import Hummingbird
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// The JSON conventions of the contract: RFC 3339 UTC times with milliseconds. Bodies are written
/// with `JSONWriter` (`JSON.response(_:writing:)`); requests are decoded with `decoder`.
enum JSON {
    static let decoder = JSONDecoder()

    /// `2026-11-22T03:18:16.123Z`: RFC 3339, UTC, milliseconds (truncated).
    static func timestamp(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        Self.appendTimestamp(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the 24 bytes of `timestamp(date)`, written digit by digit: a feed page has forty
    /// of these, and the general-purpose formatters are far slower.
    static func appendTimestamp(_ date: Date, to bytes: inout [UInt8]) {
        // Whole microseconds first, so that binary fractions like 0.001 do not floor one millisecond low.
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let millis = micros >= 0 ? micros / 1000 : (micros - 999) / 1000
        let (seconds, fraction) = millis.quotientAndRemainder(dividingBy: 1000)
        var time = time_t(fraction < 0 ? seconds - 1 : seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let milliseconds = Int(fraction < 0 ? fraction + 1000 : fraction)
        func put(_ value: Int, _ width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            var value = value
            while divisor > 0 {
                bytes.append(UInt8(truncatingIfNeeded: 0x30 + (value / divisor) % 10))
                value %= divisor
                divisor /= 10
            }
        }
        put(Int(parts.tm_year) + 1900, 4)
        bytes.append(UInt8(ascii: "-"))
        put(Int(parts.tm_mon) + 1, 2)
        bytes.append(UInt8(ascii: "-"))
        put(Int(parts.tm_mday), 2)
        bytes.append(UInt8(ascii: "T"))
        put(Int(parts.tm_hour), 2)
        bytes.append(UInt8(ascii: ":"))
        put(Int(parts.tm_min), 2)
        bytes.append(UInt8(ascii: ":"))
        put(Int(parts.tm_sec), 2)
        bytes.append(UInt8(ascii: "."))
        put(milliseconds, 3)
        bytes.append(UInt8(ascii: "Z"))
    }
}
