import SoomCrypto
import Testing

@Suite("DevicePublicKey signature verification")
struct SignatureVerificationTests {
    /// Signatures made outside SoomCrypto (openssl CLI, Python `cryptography`) that must verify.
    static let validSignatures: [(file: String, key: String, scheme: SignatureScheme)] = [
        ("sig_openssl_pss_digest.b64", "rsa2048_spki.pem", .rsaPSSSHA256),
        ("sig_openssl_pss_max.b64", "rsa2048_spki.pem", .rsaPSSSHA256),
        ("sig_openssl_pss_zero.b64", "rsa2048_spki.pem", .rsaPSSSHA256),
        ("sig_openssl_pkcs1.b64", "rsa2048_spki.pem", .rsaPKCS1v15SHA256),
        ("sig_python_pss_digest.b64", "rsa2048_spki.pem", .rsaPSSSHA256),
        ("sig_python_pss_max.b64", "rsa2048_spki.pem", .rsaPSSSHA256),
        ("sig_python_pss_zero.b64", "rsa2048_spki.pem", .rsaPSSSHA256),
        ("sig_python_pkcs1.b64", "rsa2048_spki.pem", .rsaPKCS1v15SHA256),
        ("sig_openssl_4096_pss.b64", "rsa4096_spki.pem", .rsaPSSSHA256),
        ("sig_openssl_4096_pkcs1.b64", "rsa4096_spki.pem", .rsaPKCS1v15SHA256),
    ]

    static func otherScheme(_ scheme: SignatureScheme) -> SignatureScheme {
        scheme == .rsaPSSSHA256 ? .rsaPKCS1v15SHA256 : .rsaPSSSHA256
    }

    @Test(
        "accepts signatures from openssl and Python, with either PEM form of the key",
        arguments: validSignatures.map(\.file))
    func acceptsValid(file: String) throws {
        let entry = try #require(Self.validSignatures.first { $0.file == file })
        let signature = try Fixtures.signature(entry.file)
        let message = try Fixtures.message()
        let spki = try DevicePublicKey(pem: Fixtures.text(entry.key))
        let pkcs1 = try DevicePublicKey(pem: Fixtures.text(entry.key.replacingOccurrences(of: "spki", with: "pkcs1")))
        #expect(spki.isValidSignature(signature, for: message, scheme: entry.scheme))
        #expect(pkcs1.isValidSignature(signature, for: message, scheme: entry.scheme))
    }

    @Test(
        "rejects a valid signature when the message, key or padding is wrong",
        arguments: validSignatures.map(\.file))
    func rejectsMismatches(file: String) throws {
        let entry = try #require(Self.validSignatures.first { $0.file == file })
        let signature = try Fixtures.signature(entry.file)
        let message = try Fixtures.message()
        let key = try DevicePublicKey(pem: Fixtures.text(entry.key))
        let wrongKey = try DevicePublicKey(
            pem: Fixtures.text(
                entry.key == "rsa2048_spki.pem" ? "rsa2048_other_spki.pem" : "rsa2048_spki.pem"))

        var tampered = message
        tampered[tampered.count - 1] ^= 0x01
        #expect(!key.isValidSignature(signature, for: tampered, scheme: entry.scheme))
        #expect(!key.isValidSignature(signature, for: message + [0x0A], scheme: entry.scheme))
        #expect(!key.isValidSignature(signature, for: [], scheme: entry.scheme))
        #expect(!wrongKey.isValidSignature(signature, for: message, scheme: entry.scheme))
        #expect(!key.isValidSignature(signature, for: message, scheme: Self.otherScheme(entry.scheme)))
    }

    @Test("rejects a flipped bit anywhere in the signature")
    func rejectsBitFlips() throws {
        let signature = try Fixtures.signature("sig_openssl_pss_digest.b64")
        let message = try Fixtures.message()
        let key = try DevicePublicKey(pem: Fixtures.text("rsa2048_spki.pem"))
        for index in [0, 1, signature.count / 2, signature.count - 1] {
            var flipped = signature
            flipped[index] ^= 0x80
            #expect(!key.isValidSignature(flipped, for: message, scheme: .rsaPSSSHA256), "byte \(index)")
        }
    }

    @Test(
        "rejects PSS signatures made with MGF1-SHA-1",
        arguments: [
            "sig_openssl_pss_mgf1sha1.b64", "sig_python_pss_mgf1sha1.b64",
        ])
    func rejectsMGF1SHA1(file: String) throws {
        let key = try DevicePublicKey(pem: Fixtures.text("rsa2048_spki.pem"))
        let signature = try Fixtures.signature(file)
        #expect(signature.count == 256)  // a well-formed signature, only the MGF hash differs
        #expect(!key.isValidSignature(signature, for: try Fixtures.message(), scheme: .rsaPSSSHA256))
        #expect(!key.isValidSignature(signature, for: try Fixtures.message(), scheme: .rsaPKCS1v15SHA256))
    }

    @Test("rejects empty, garbage and wrongly sized signatures", arguments: SignatureScheme.allCases)
    func rejectsBadSignatureBytes(scheme: SignatureScheme) throws {
        let key = try DevicePublicKey(pem: Fixtures.text("rsa2048_spki.pem"))
        let message = try Fixtures.message()
        let valid = try Fixtures.signature(
            scheme == .rsaPSSSHA256 ? "sig_openssl_pss_digest.b64" : "sig_openssl_pkcs1.b64")
        #expect(key.isValidSignature(valid, for: message, scheme: scheme))  // control

        #expect(!key.isValidSignature([], for: message, scheme: scheme))
        #expect(!key.isValidSignature([0x00], for: message, scheme: scheme))
        #expect(!key.isValidSignature([UInt8](repeating: 0x00, count: 256), for: message, scheme: scheme))
        #expect(!key.isValidSignature([UInt8](repeating: 0xFF, count: 256), for: message, scheme: scheme))
        #expect(!key.isValidSignature(SecureRandom.bytes(256), for: message, scheme: scheme))
        #expect(!key.isValidSignature(Array(valid.dropLast()), for: message, scheme: scheme))
        #expect(!key.isValidSignature(Array(valid.dropFirst()), for: message, scheme: scheme))
        #expect(!key.isValidSignature(valid + [0x00], for: message, scheme: scheme))
        #expect(!key.isValidSignature([0x00] + valid, for: message, scheme: scheme))
        #expect(!key.isValidSignature(valid + valid, for: message, scheme: scheme))
    }

    @Test("a signature with its leading zero byte stripped is rejected (RFC 8017 length check)")
    func rejectsStrippedLeadingZero() throws {
        let privateKey = try DevicePrivateKey(pem: Fixtures.text("rsa2048_private.pem"))
        let key = try DevicePublicKey(pem: Fixtures.text("rsa2048_spki.pem"))
        let message = try Fixtures.message()
        // PSS signatures are randomised; about 1 in 256 starts with 0x00.
        var found: [UInt8]?
        for _ in 0..<8192 {
            let signature = privateKey.signature(for: message, scheme: .rsaPSSSHA256)
            if signature.first == 0x00 {
                found = signature
                break
            }
        }
        let signature = try #require(found)
        #expect(key.isValidSignature(signature, for: message, scheme: .rsaPSSSHA256))
        #expect(!key.isValidSignature(Array(signature.dropFirst()), for: message, scheme: .rsaPSSSHA256))
    }

    @Test("failures leave no error on the OpenSSL queue to break the next verification")
    func failuresDoNotLeakIntoLaterCalls() throws {
        let key = try DevicePublicKey(pem: Fixtures.text("rsa2048_spki.pem"))
        let message = try Fixtures.message()
        let valid = try Fixtures.signature("sig_python_pss_max.b64")
        for _ in 0..<20 {
            #expect(!key.isValidSignature(SecureRandom.bytes(256), for: message, scheme: .rsaPSSSHA256))
            #expect(!key.isValidSignature(SecureRandom.bytes(256), for: message, scheme: .rsaPKCS1v15SHA256))
            #expect(key.isValidSignature(valid, for: message, scheme: .rsaPSSSHA256))
        }
    }

    @Test("one key verifies correctly from 64 concurrent tasks")
    func concurrentVerification() async throws {
        let key = try DevicePublicKey(pem: Fixtures.text("rsa2048_spki.pem"))
        let message = try Fixtures.message()
        let pss = try Fixtures.signature("sig_openssl_pss_max.b64")
        let pkcs1 = try Fixtures.signature("sig_python_pkcs1.b64")
        let results = await withTaskGroup(of: Bool.self, returning: [Bool].self) { group in
            for index in 0..<64 {
                group.addTask {
                    var ok = true
                    for _ in 0..<10 {
                        // Mix successes and failures so error-queue handling is exercised too.
                        ok =
                            ok
                            && key.isValidSignature(
                                index.isMultiple(of: 2) ? pss : pkcs1, for: message,
                                scheme: index.isMultiple(of: 2) ? .rsaPSSSHA256 : .rsaPKCS1v15SHA256)
                        ok = ok && !key.isValidSignature(pss, for: message, scheme: .rsaPKCS1v15SHA256)
                    }
                    return ok
                }
            }
            var all: [Bool] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0 })
    }
}
