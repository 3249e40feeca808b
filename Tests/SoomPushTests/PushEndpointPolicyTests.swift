import Foundation
import SoomDomain
import Testing

@testable import SoomPush

@Suite("Push endpoints: what the server may be told to call")
struct PushEndpointPolicyTests {
    static let keys = (p256dh: Base64URL.decode(WebPushTests.RFC.uaPublic)!, auth: Base64URL.decode(WebPushTests.RFC.authSecret)!)

    static func webPush(_ endpoint: String) -> PushAddress { .webPush(endpoint: endpoint, p256dh: Self.keys.p256dh, auth: Self.keys.auth) }

    @Test("https on a listed host passes; anything else is 422 on endpoint")
    func hosts() async throws {
        let policy = PushEndpointPolicy(offered: [.webPush], allowedHosts: ["localhost:8443", "push.test", "*.windows.test", "10.1.2.3"])
        for endpoint in ["https://localhost:8443/push/1", "https://push.test/x", "https://PUSH.test:443/x", "https://10.1.2.3/p"] {
            await #expect(throws: Never.self, "\(endpoint)") { try await policy.check(Self.webPush(endpoint)) }
        }
        #expect(try await policy.target(of: "https://localhost:8443/push/1") == "https://localhost:8443")
        for endpoint in [
            "http://localhost:8443/push/1", "https://localhost:9443/push/1", "https://localhost/push", "https://evil.test/x",
            "https://push.test.evil.test/x", "https://user:pw@push.test/x", "ftp://push.test/x", "https://push.test:8080/x",
            "https://127.0.0.1:8443/x", "https://[::1]:8443/x", "https://169.254.169.254/latest/meta-data", "not a url", "",
            "https://windows.test/x", "https://a.windows.test:8443/x", "https://10.1.2.4/p", "https://" + String(repeating: "a", count: 1100),
        ] {
            await #expect(throws: SoomError.self, "\(endpoint)") { try await policy.check(Self.webPush(endpoint)) }
            do {
                try await policy.check(Self.webPush(endpoint))
            } catch {
                #expect(error.field == "endpoint" && error.code == "validation_failed")
            }
        }
    }

    @Test("a suffix-listed host must resolve only to public addresses; an address literal never matches a suffix")
    func addresses() async throws {
        // `localhost` resolves to loopback only: a suffix entry could never let it through.
        let resolved = await PushEndpointPolicy.resolve("localhost")
        #expect(!resolved.isEmpty && !resolved.contains(where: IPAddressRange.isPublic))
        let bySuffix = PushEndpointPolicy(offered: [.webPush], allowedHosts: ["*.localhost", "*.0.0.1"])
        await #expect(throws: SoomError.self) { try await bySuffix.check(Self.webPush("https://push.localhost/x")) }
        await #expect(throws: SoomError.self) { try await bySuffix.check(Self.webPush("https://127.0.0.1/x")) }
        let private4: [[UInt8]] = [
            [127, 0, 0, 1], [10, 0, 0, 1], [172, 16, 5, 4], [192, 168, 1, 1], [169, 254, 169, 254], [100, 64, 0, 1], [0, 0, 0, 0], [224, 0, 0, 1],
            [255, 255, 255, 255],
        ]
        for address in private4 { #expect(!IPAddressRange.isPublic(address), "\(address)") }
        for address in [[8, 8, 8, 8], [142, 250, 1, 1], [172, 32, 0, 1]] as [[UInt8]] { #expect(IPAddressRange.isPublic(address), "\(address)") }
        let loopback6 = [UInt8](repeating: 0, count: 15) + [1]
        let mapped = [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 169, 254, 169, 254]
        let linkLocal: [UInt8] = [0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [1]
        let uniqueLocal: [UInt8] = [0xFD, 0x12] + [UInt8](repeating: 0, count: 14)
        let google: [UInt8] = [0x2A, 0x00, 0x14, 0x50] + [UInt8](repeating: 0, count: 11) + [1]
        for address in [loopback6, mapped, linkLocal, uniqueLocal] { #expect(!IPAddressRange.isPublic(address), "\(address)") }
        #expect(IPAddressRange.isPublic(google))
    }

    @Test("keys and tokens: p256dh a P-256 point of 65 bytes, auth 16 bytes, FCM and APNs tokens of their shape")
    func keysAndTokens() async throws {
        let policy = PushEndpointPolicy(offered: [.webPush, .fcm, .apns], allowedHosts: ["push.test"])
        await #expect(throws: SoomError.self) {
            try await policy.check(.webPush(endpoint: "https://push.test/x", p256dh: [4] + [UInt8](repeating: 7, count: 64), auth: Self.keys.auth))
        }
        await #expect(throws: SoomError.self) {
            try await policy.check(.webPush(endpoint: "https://push.test/x", p256dh: Self.keys.p256dh, auth: [1, 2, 3]))
        }
        await #expect(throws: Never.self) { try await policy.check(.fcm(token: "dGVzdA:APA91b-Ex_ample")) }
        await #expect(throws: SoomError.self) { try await policy.check(.fcm(token: "has space")) }
        await #expect(throws: Never.self) { try await policy.check(.apns(token: String(repeating: "ab", count: 32))) }
        await #expect(throws: SoomError.self) { try await policy.check(.apns(token: "xyz")) }
    }
}
