import Foundation
import SoomDomain
import Testing

@Suite("Base64URL: RFC 4648 §5 without padding")
struct Base64URLTests {
    @Test("known vectors, and every length round-trips")
    func roundTrip() {
        #expect(Base64URL.encode([]) == "")
        #expect(Base64URL.encode(Array("f".utf8)) == "Zg")
        #expect(Base64URL.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
        var generator = SystemRandomNumberGenerator()
        for length in 0...80 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == bytes, "length \(length)")
        }
    }

    @Test("padding, the standard alphabet, spaces, impossible lengths and non-ASCII are refused")
    func refusals() {
        for text in ["Zg==", "+/+/", "Zm9v YmFy", "Z", "Zm9vY", "숨숨", "Zm9v\n", "Zm9v\u{0}"] {
            #expect(Base64URL.decode(text) == nil, "\(text.debugDescription)")
        }
    }
}
