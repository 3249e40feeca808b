import Hummingbird
import NIOCore
import Testing

@testable import SoomHTTP

@Suite("JSON bodies: nesting is measured before decoding")
struct JSONNestingTests {
    private func depth(_ text: String) -> Int {
        Request.nestingDepth(of: ByteBuffer(string: text).readableBytesView)
    }

    @Test("arrays and objects count, brackets inside strings and after escapes do not")
    func depths() {
        #expect(depth(#"{"a": 1}"#) == 1)
        #expect(depth(#"{"tags": ["a", "b"], "location": {"latitude": 1}}"#) == 2)
        #expect(depth(#"{"content": "[[[{{{ \"[[[ \\"}"#) == 1)
        #expect(depth(String(repeating: "[", count: 10_000)) == 10_000)
        #expect(depth(String(repeating: "[", count: 33) + String(repeating: "]", count: 33)) > Request.maximumJSONNesting)
    }
}
