import Foundation
import SoomCrypto
import Testing

@Suite("DevicePublicKey parsing")
struct DevicePublicKeyParsingTests {
    @Test("SPKI and PKCS#1 forms of one key give the same DER, fingerprint and size", arguments: [2048, 4096])
    func bothFormsAgree(bits: Int) throws {
        let spki = try DevicePublicKey(pem: Fixtures.text("rsa\(bits)_spki.pem"))
        let pkcs1 = try DevicePublicKey(pem: Fixtures.text("rsa\(bits)_pkcs1.pem"))
        #expect(spki.subjectPublicKeyInfoDER == pkcs1.subjectPublicKeyInfoDER)
        #expect(spki.fingerprint == pkcs1.fingerprint)
        #expect(spki.bits == bits)
        #expect(pkcs1.bits == bits)
    }

    @Test("fingerprint equals `openssl pkey -pubin -outform DER | sha256sum`", arguments: [2048, 4096])
    func fingerprintMatchesOpenSSLCLI(bits: Int) throws {
        let expected = try Fixtures.text("rsa\(bits)_fingerprint.hex").trimmingCharacters(in: .whitespacesAndNewlines)
        let key = try DevicePublicKey(pem: Fixtures.text("rsa\(bits)_spki.pem"))
        #expect(key.fingerprint.count == 32)
        #expect(Fixtures.hex(key.fingerprint) == expected)
        #expect(key.fingerprint == SHA256Digest.hash(key.subjectPublicKeyInfoDER))
    }

    @Test("DER equals the base64 body of the SPKI PEM")
    func derIsThePEMBody() throws {
        let pem = try Fixtures.text("rsa2048_spki.pem")
        let body = pem.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
        let expected = try #require(Data(base64Encoded: body))
        #expect(try DevicePublicKey(pem: pem).subjectPublicKeyInfoDER == [UInt8](expected))
    }

    @Test("different keys have different fingerprints")
    func differentKeysDiffer() throws {
        let a = try DevicePublicKey(pem: Fixtures.text("rsa2048_spki.pem"))
        let b = try DevicePublicKey(pem: Fixtures.text("rsa2048_other_spki.pem"))
        #expect(a.fingerprint != b.fingerprint)
    }

    @Test("CRLF line endings and surrounding whitespace are accepted")
    func crlfAndWhitespace() throws {
        let pem = try Fixtures.text("rsa2048_pkcs1.pem")
        let reference = try DevicePublicKey(pem: pem)
        let crlf = "\r\n\t  " + pem.replacingOccurrences(of: "\n", with: "\r\n") + "  \r\n\n"
        #expect(try DevicePublicKey(pem: crlf).fingerprint == reference.fingerprint)
        let oneLineBody = try Self.rewrap(pem, lineLength: 10_000)
        #expect(try DevicePublicKey(pem: oneLineBody).fingerprint == reference.fingerprint)
    }

    @Test(
        "keys outside 2048...4096 bits are refused with their size",
        arguments: [
            ("rsa1024_spki.pem", 1024), ("rsa4104_spki.pem", 4104),
        ])
    func unsupportedSize(file: String, bits: Int) throws {
        let pem = try Fixtures.text(file)
        #expect(throws: PublicKeyError.unsupportedSize(bits: bits)) { try DevicePublicKey(pem: pem) }
    }

    @Test("an exponent other than 65537 is refused")
    func unsupportedExponent() throws {
        let pem = try Fixtures.text("rsa2048_e3_spki.pem")
        #expect(throws: PublicKeyError.unsupportedExponent) { try DevicePublicKey(pem: pem) }
    }

    @Test(
        "non-RSA and RSA-PSS-restricted keys are refused as notRSA",
        arguments: [
            "ec_p256_spki.pem", "ed25519_spki.pem", "rsapss2048_spki.pem",
        ])
    func notRSA(file: String) throws {
        let pem = try Fixtures.text(file)
        #expect(throws: PublicKeyError.notRSA) { try DevicePublicKey(pem: pem) }
    }

    @Test("malformed input is refused as malformedPEM", arguments: MalformedCase.allCases)
    func malformed(_ malformedCase: MalformedCase) throws {
        let pem = try malformedCase.pem()
        #expect(throws: PublicKeyError.malformedPEM) { try DevicePublicKey(pem: pem) }
    }

    enum MalformedCase: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case emptyString, whitespaceOnly, garbage, privateKeyPKCS8, privateKeyPKCS1
        case twoBlocks, twoIdenticalBlocks, textBeforeBlock, textAfterBlock
        case trailingGarbageInsideBase64, trailingValidBase64InsideBody, truncatedBase64
        case emptyBody, mismatchedLabels, spkiBodyUnderPKCS1Label, pkcs1BodyUnderSPKILabel
        case bytesAfterRSAKeyInsideBitString, pemHeaders, certificateLabel, missingEndLine

        var testDescription: String { rawValue }

        func pem() throws -> String {
            let spki = try Fixtures.text("rsa2048_spki.pem")
            let pkcs1 = try Fixtures.text("rsa2048_pkcs1.pem")
            let spkiBody = Self.body(spki)
            let pkcs1Body = Self.body(pkcs1)
            switch self {
            case .emptyString: return ""
            case .whitespaceOnly: return " \n\r\n\t"
            case .garbage: return "this is not a key"
            case .privateKeyPKCS8: return try Fixtures.text("rsa2048_private.pem")
            case .privateKeyPKCS1: return try Fixtures.text("rsa2048_private_pkcs1.pem")
            case .twoBlocks: return spki + (try Fixtures.text("rsa2048_other_spki.pem"))
            case .twoIdenticalBlocks: return spki + spki
            case .textBeforeBlock: return "key:\n" + spki
            case .textAfterBlock: return spki + "thanks\n"
            case .trailingGarbageInsideBase64:
                return Self.block("PUBLIC KEY", spkiBody + "\n!!garbage!!")
            case .trailingValidBase64InsideBody:
                // Decodes fine, but leaves bytes after the DER SEQUENCE.
                return Self.block("PUBLIC KEY", spkiBody + "\nAAAA")
            case .truncatedBase64:
                return Self.block("PUBLIC KEY", String(spkiBody.dropLast(1)))
            case .emptyBody: return "-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----\n"
            case .mismatchedLabels:
                return "-----BEGIN PUBLIC KEY-----\n\(spkiBody)\n-----END RSA PUBLIC KEY-----\n"
            case .spkiBodyUnderPKCS1Label: return Self.block("RSA PUBLIC KEY", spkiBody)
            case .pkcs1BodyUnderSPKILabel: return Self.block("PUBLIC KEY", pkcs1Body)
            case .bytesAfterRSAKeyInsideBitString:
                // Valid outer DER, but the PKCS#1 structure inside is followed by extra bytes.
                let der = try #require(Data(base64Encoded: pkcs1Body))
                let padded = Data(der) + Data([0x05, 0x00])
                return Self.block("RSA PUBLIC KEY", padded.base64EncodedString())
            case .pemHeaders:
                return "-----BEGIN PUBLIC KEY-----\nProc-Type: 4,ENCRYPTED\n\n\(spkiBody)\n-----END PUBLIC KEY-----\n"
            case .certificateLabel: return Self.block("CERTIFICATE", spkiBody)
            case .missingEndLine: return "-----BEGIN PUBLIC KEY-----\n\(spkiBody)\n"
            }
        }

        private static func body(_ pem: String) -> String {
            pem.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
        }

        private static func block(_ label: String, _ body: String) -> String {
            "-----BEGIN \(label)-----\n\(body)\n-----END \(label)-----\n"
        }
    }

    /// Re-wraps a PEM's base64 body at `lineLength` characters.
    private static func rewrap(_ pem: String, lineLength: Int) throws -> String {
        let lines = pem.split(whereSeparator: \.isNewline).map(String.init)
        let body = lines.filter { !$0.hasPrefix("-----") }.joined()
        var wrapped: [String] = []
        var rest = Substring(body)
        while !rest.isEmpty {
            wrapped.append(String(rest.prefix(lineLength)))
            rest = rest.dropFirst(lineLength)
        }
        let first = try #require(lines.first)
        let last = try #require(lines.last)
        return ([first] + wrapped + [last]).joined(separator: "\n")
    }
}
