import SoomCrypto
import Testing

@Suite("DevicePrivateKey round trips")
struct DevicePrivateKeyTests {
    /// One generated key shared by the tests in this suite (generation takes a moment).
    static let generated = DevicePrivateKey(bits: 2048)
    static let message = Array("soom:v1:login:round-trip".utf8)

    @Test(
        "PSS signatures verify for every salt length, with both PEM forms",
        arguments: DevicePrivateKey.PSSSaltLength.allCases)
    func pssRoundTrip(saltLength: DevicePrivateKey.PSSSaltLength) throws {
        let privateKey = Self.generated
        let signature = privateKey.signature(for: Self.message, scheme: .rsaPSSSHA256, pssSaltLength: saltLength)
        #expect(signature.count == 256)
        let spki = try DevicePublicKey(pem: privateKey.publicKeyPEM)
        let pkcs1 = try DevicePublicKey(pem: privateKey.publicKeyPKCS1PEM)
        #expect(spki.isValidSignature(signature, for: Self.message, scheme: .rsaPSSSHA256))
        #expect(pkcs1.isValidSignature(signature, for: Self.message, scheme: .rsaPSSSHA256))
        #expect(!spki.isValidSignature(signature, for: Self.message, scheme: .rsaPKCS1v15SHA256))
        #expect(!spki.isValidSignature(signature, for: Self.message + [0], scheme: .rsaPSSSHA256))
    }

    @Test("salt length zero is deterministic; other PSS salt lengths are randomised")
    func saltRandomisation() {
        let key = Self.generated
        let zero1 = key.signature(for: Self.message, scheme: .rsaPSSSHA256, pssSaltLength: .zero)
        let zero2 = key.signature(for: Self.message, scheme: .rsaPSSSHA256, pssSaltLength: .zero)
        let digest1 = key.signature(for: Self.message, scheme: .rsaPSSSHA256, pssSaltLength: .digestLength)
        let digest2 = key.signature(for: Self.message, scheme: .rsaPSSSHA256, pssSaltLength: .digestLength)
        #expect(zero1 == zero2)
        #expect(digest1 != digest2)
    }

    @Test("PKCS#1 v1.5 signatures verify and are deterministic")
    func pkcs1RoundTrip() throws {
        let privateKey = Self.generated
        let signature = privateKey.signature(for: Self.message, scheme: .rsaPKCS1v15SHA256)
        let key = try DevicePublicKey(pem: privateKey.publicKeyPKCS1PEM)
        #expect(key.isValidSignature(signature, for: Self.message, scheme: .rsaPKCS1v15SHA256))
        #expect(!key.isValidSignature(signature, for: Self.message, scheme: .rsaPSSSHA256))
        #expect(signature == privateKey.signature(for: Self.message, scheme: .rsaPKCS1v15SHA256))
    }

    @Test("public key PEMs have the expected labels and describe the same key")
    func publicKeyPEMs() throws {
        let privateKey = Self.generated
        #expect(privateKey.publicKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        #expect(privateKey.publicKeyPKCS1PEM.hasPrefix("-----BEGIN RSA PUBLIC KEY-----\n"))
        let spki = try DevicePublicKey(pem: privateKey.publicKeyPEM)
        let pkcs1 = try DevicePublicKey(pem: privateKey.publicKeyPKCS1PEM)
        #expect(spki.fingerprint == pkcs1.fingerprint)
        #expect(spki.bits == 2048)
        #expect(privateKey.bits == 2048)
    }

    @Test("two generated keys differ")
    func generatedKeysDiffer() throws {
        let other = DevicePrivateKey()
        let a = try DevicePublicKey(pem: Self.generated.publicKeyPEM)
        let b = try DevicePublicKey(pem: other.publicKeyPEM)
        #expect(a.fingerprint != b.fingerprint)
        let signature = other.signature(for: Self.message, scheme: .rsaPSSSHA256)
        #expect(b.isValidSignature(signature, for: Self.message, scheme: .rsaPSSSHA256))
        #expect(!a.isValidSignature(signature, for: Self.message, scheme: .rsaPSSSHA256))
    }

    @Test(
        "loads PKCS#8 and PKCS#1 private key PEMs matching the fixture public key",
        arguments: [
            "rsa2048_private.pem", "rsa2048_private_pkcs1.pem",
        ])
    func loadsPrivateKeyPEM(file: String) throws {
        let privateKey = try DevicePrivateKey(pem: Fixtures.text(file))
        let fixturePublic = try DevicePublicKey(pem: Fixtures.text("rsa2048_spki.pem"))
        #expect(try DevicePublicKey(pem: privateKey.publicKeyPEM).fingerprint == fixturePublic.fingerprint)
        for scheme in SignatureScheme.allCases {
            let signature = privateKey.signature(for: Self.message, scheme: scheme, pssSaltLength: .maximum)
            #expect(fixturePublic.isValidSignature(signature, for: Self.message, scheme: scheme))
        }
    }

    @Test("a signature by a 4096-bit fixture key verifies and is 512 bytes long")
    func fourKiloBitKey() throws {
        let privateKey = try DevicePrivateKey(pem: Fixtures.text("rsa4096_private.pem"))
        let key = try DevicePublicKey(pem: Fixtures.text("rsa4096_pkcs1.pem"))
        let signature = privateKey.signature(for: Self.message, scheme: .rsaPSSSHA256, pssSaltLength: .maximum)
        #expect(signature.count == 512)
        #expect(key.isValidSignature(signature, for: Self.message, scheme: .rsaPSSSHA256))
    }

    @Test("refuses public keys, garbage and non-RSA private keys")
    func refusesBadPrivateKeyPEM() throws {
        let spki = try Fixtures.text("rsa2048_spki.pem")
        #expect(throws: PrivateKeyError.malformedPEM) { try DevicePrivateKey(pem: spki) }
        #expect(throws: PrivateKeyError.malformedPEM) { try DevicePrivateKey(pem: "") }
        #expect(throws: PrivateKeyError.malformedPEM) { try DevicePrivateKey(pem: "not a key") }
        let ecPrivate = try Fixtures.text("ec_p256_private.pem")
        #expect(throws: PrivateKeyError.notRSA) { try DevicePrivateKey(pem: ecPrivate) }
    }

    @Test("a generated 1024-bit key is refused by DevicePublicKey")
    func smallGeneratedKeyIsRefused() {
        let small = DevicePrivateKey(bits: 1024)
        #expect(small.bits == 1024)
        #expect(throws: PublicKeyError.unsupportedSize(bits: 1024)) { try DevicePublicKey(pem: small.publicKeyPEM) }
    }
}
