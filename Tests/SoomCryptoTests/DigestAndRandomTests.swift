import SoomCrypto
import Testing

@Suite("SHA256Digest and SecureRandom")
struct DigestAndRandomTests {
    @Test(
        "SHA-256 matches the FIPS 180-2 test vectors",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
        ])
    func knownVectors(input: String, expected: String) {
        #expect(Fixtures.hex(SHA256Digest.hash(input)) == expected)
        #expect(Fixtures.hex(SHA256Digest.hash(Array(input.utf8))) == expected)
    }

    @Test("String overload hashes UTF-8")
    func utf8() {
        let text = "숨 soom ✓"
        #expect(SHA256Digest.hash(text) == SHA256Digest.hash(Array(text.utf8)))
        #expect(SHA256Digest.hash(text).count == 32)
        #expect(SHA256Digest.hash(text) != SHA256Digest.hash("숨 soom"))
    }

    @Test("a million 'a' (long input)")
    func millionA() {
        let input = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(
            Fixtures.hex(SHA256Digest.hash(input))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("SecureRandom returns the requested number of bytes", arguments: [0, 1, 16, 32, 4097])
    func randomCount(count: Int) {
        #expect(SecureRandom.bytes(count).count == count)
    }

    @Test("SecureRandom output is not constant and does not repeat")
    func randomDiffers() {
        let a = SecureRandom.bytes(32)
        let b = SecureRandom.bytes(32)
        #expect(a != b)
        #expect(Set(a).count > 1)
        // Over 64 KiB every byte value should appear (failure probability is negligible).
        #expect(Set(SecureRandom.bytes(65_536)).count == 256)
    }
}
