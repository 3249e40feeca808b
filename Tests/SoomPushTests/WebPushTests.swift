import Crypto
import Foundation
import JWTKit
import SoomDomain
import Testing

@testable import SoomPush

@Suite("Web Push: RFC 8291 encryption, VAPID, answers")
struct WebPushTests {
    /// RFC 8291 §5 and Appendix A.
    enum RFC {
        static let plaintext = "When I grow up, I want to be a watermelon"
        static let uaPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
        static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
        static let asPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
        static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
        static let body =
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
    }

    static func bytes(_ text: String) -> [UInt8] { Base64URL.decode(text)! }

    @Test("encrypting RFC 8291's example with its keys and salt gives its body, byte for byte")
    func rfcExample() throws {
        let body = try WebPushEncryption.encrypt(
            Array(RFC.plaintext.utf8), p256dh: Self.bytes(RFC.uaPublic), auth: Self.bytes(RFC.authSecret),
            senderKey: try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.bytes(RFC.asPrivate)), salt: Self.bytes(RFC.salt))
        #expect(Base64URL.encode(body) == RFC.body)
    }

    @Test("every message has a fresh salt and key; a payload over one record is refused; a bad key is refused")
    func freshAndBounded() throws {
        let (p256dh, auth) = (Self.bytes(RFC.uaPublic), Self.bytes(RFC.authSecret))
        let one = try WebPushEncryption.encrypt(Array("같은 말".utf8), p256dh: p256dh, auth: auth)
        let two = try WebPushEncryption.encrypt(Array("같은 말".utf8), p256dh: p256dh, auth: auth)
        #expect(one.count == two.count && one != two && one[0..<16] != two[0..<16] && one[21..<86] != two[21..<86])
        #expect(one[16..<21] == [0, 0, 0x10, 0, 65])
        #expect(throws: WebPushEncryption.PayloadTooLarge.self) {
            try WebPushEncryption.encrypt([UInt8](repeating: 0x41, count: WebPushEncryption.maximumPayload + 1), p256dh: p256dh, auth: auth)
        }
        #expect(throws: (any Error).self) { try WebPushEncryption.encrypt([1], p256dh: [4] + [UInt8](repeating: 1, count: 64), auth: auth) }
    }

    @Test("VAPID: an ES256 token for the endpoint's origin, with expiry and subject, verified by the public key it names")
    func vapid() async throws {
        let key = P256.Signing.PrivateKey()
        let vapid = try await VAPID(privateKey: key, subject: "mailto:ops@soom.example")
        let now = Date()
        let header = try await vapid.authorization(for: "https://push.example.net", now: now)
        let parts = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(parts.count == 2 && parts[0].hasPrefix("vapid t=") && parts[1] == "k=\(vapid.publicKey)")
        #expect(Base64URL.decode(vapid.publicKey) == Array(key.publicKey.x963Representation))
        let token = String(parts[0].dropFirst("vapid t=".count))
        let verifier = JWTKeyCollection()
        await verifier.add(ecdsa: try ES256PublicKey(backing: P256.Signing.PublicKey(x963Representation: Base64URL.decode(vapid.publicKey)!)))
        let claims = try await verifier.verify(token, as: VAPID.Claims.self)
        #expect(claims.aud.value == ["https://push.example.net"] && claims.sub.value == "mailto:ops@soom.example")
        #expect(abs(claims.exp.value.timeIntervalSince(now) - 12 * 3600) < 2)
        let headerJSON = try #require(Base64URL.decode(String(token.split(separator: ".")[0])))
        #expect(String(decoding: headerJSON, as: UTF8.self).contains("\"ES256\""))
        // Kept for its origin; another origin gets its own.
        #expect(try await vapid.authorization(for: "https://push.example.net", now: now.addingTimeInterval(60)) == header)
        #expect(try await vapid.authorization(for: "https://other.example.net", now: now) != header)
    }

    @Test("a push service's answer: 2xx delivered, 404/410 gone, 429/5xx retried after Retry-After, the rest refused")
    func outcomes() {
        #expect(PushPayload.outcome(status: 201, retryAfter: nil) == .delivered)
        #expect(PushPayload.outcome(status: 410, retryAfter: nil) == .gone && PushPayload.outcome(status: 404, retryAfter: nil) == .gone)
        #expect(PushPayload.outcome(status: 429, retryAfter: "120") == .retry(after: .seconds(120)))
        #expect(PushPayload.outcome(status: 503, retryAfter: nil) == .retry(after: nil))
        #expect(PushPayload.outcome(status: 500, retryAfter: "soon") == .retry(after: nil))
        #expect(PushPayload.outcome(status: 400, retryAfter: nil) == .failed && PushPayload.outcome(status: 413, retryAfter: nil) == .failed)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let later = PushPayload.retryAfter("Fri, 15 Jan 2027 08:01:40 GMT", now: now)
        #expect(later == .seconds(100))
        #expect(PushPayload.retryAfter("Fri, 15 Jan 2027 07:00:00 GMT", now: now) == nil)
        #expect(PushPayload.topic(UUID(uuidString: "0B8A4C3E-3F7E-4A55-9A5E-0C2E1B7D9F10")!) == "0b8a4c3e3f7e4a559a5e0c2e1b7d9f10")
    }
}
