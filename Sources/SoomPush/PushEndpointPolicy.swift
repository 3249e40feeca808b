import Dispatch
import Foundation
import SoomDomain

#if canImport(Glibc)
    import Glibc
#endif

/// Which Web Push endpoints the server will call, so that a subscriber cannot point it at
/// anything else (server-side request forgery):
///
/// - `https` only, with a host and no user name or password, at most 1,024 characters;
/// - the host (and port, when the entry names one) must match an entry of `allowedHosts`: an
///   exact name (`updates.push.services.mozilla.com`, `localhost:8443`) or a suffix
///   (`*.notify.windows.com`, which does not match `notify.windows.com` itself);
/// - every address the host resolves to must be public: not loopback, private, link-local (the
///   cloud metadata service at 169.254.169.254 among them), shared, multicast or unspecified —
///   unless the host is listed by exact name, which is how tests and private push services are
///   allowed on purpose. An address literal is accepted only when listed exactly.
///
/// The same check runs again before each send (names can resolve differently later); redirects
/// are never followed.
public struct PushEndpointPolicy: PushAddressPolicy {
    public let offered: Set<PushKind>
    let exact: Set<String>
    let suffixes: [String]

    /// The browsers' public push services: Chrome and Edge (FCM), Firefox (Mozilla), Safari
    /// (Apple), and Windows' notification service.
    public static let defaultHosts = [
        "fcm.googleapis.com", "updates.push.services.mozilla.com", "web.push.apple.com", "*.push.apple.com", "*.notify.windows.com",
    ]

    /// - Parameter allowedHosts: entries as `SOOM_PUSH_ALLOWED_HOSTS` lists them (`host`,
    ///   `host:port`, `*.suffix`), compared without case.
    public init(offered: Set<PushKind>, allowedHosts: [String] = Self.defaultHosts) {
        self.offered = offered
        var exact: Set<String> = []
        var suffixes: [String] = []
        for entry in allowedHosts.map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !entry.isEmpty {
            if entry.hasPrefix("*.") { suffixes.append(String(entry.dropFirst(1))) } else { exact.insert(entry) }
        }
        self.exact = exact
        self.suffixes = suffixes
    }

    public func check(_ address: PushAddress) async throws(SoomError) {
        switch address {
        case .webPush(let endpoint, let p256dh, let auth):
            _ = try await self.target(of: endpoint)
            guard p256dh.count == 65, p256dh.first == 4, WebPushKeys.isValidPoint(p256dh) else {
                throw .validationFailed(field: "keys.p256dh", "p256dh must be the browser's P-256 public key, 65 bytes in base64url.")
            }
            guard auth.count == 16 else {
                throw .validationFailed(field: "keys.auth", "auth must be the browser's 16-byte secret in base64url.")
            }
        case .fcm(let token):
            // Real tokens are about 160 characters; 1,024 leaves room and stays far below what an index row holds.
            guard (1...1024).contains(token.utf8.count), token.utf8.allSatisfy(Self.isTokenByte) else {
                throw .validationFailed(field: "token", "The FCM registration token is malformed.")
            }
        case .apns(let token):
            guard (64...200).contains(token.utf8.count), token.utf8.allSatisfy({ Self.isHexDigit($0) }) else {
                throw .validationFailed(field: "token", "The APNs device token must be 64 to 200 hexadecimal digits.")
            }
        }
    }

    /// The endpoint's origin (`https://host[:port]`, for VAPID's `aud`), once it passes every rule.
    /// - Throws: `422 validation_failed` on `endpoint`.
    public func target(of endpoint: String) async throws(SoomError) -> String {
        let refused = SoomError.validationFailed(
            field: "endpoint", "The endpoint must be an https URL of a push service this server is allowed to call.")
        guard endpoint.utf8.count <= 1024, let components = URLComponents(string: endpoint), components.scheme?.lowercased() == "https",
            let host = components.host?.lowercased(), !host.isEmpty, components.user == nil, components.password == nil
        else { throw refused }
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let port = components.port
        let named = port.map { "\(bareHost):\($0)" } ?? bareHost
        let listedExactly =
            self.exact.contains(named) || (port == 443 && self.exact.contains(bareHost)) || (port == nil && self.exact.contains("\(bareHost):443"))
        // An origin leaves out the default port (RFC 6454): VAPID's `aud` must match what the service expects.
        let origin = "https://\(host)" + (port.flatMap { $0 == 443 ? nil : ":\($0)" } ?? "")
        if listedExactly { return origin }
        guard port == nil || port == 443, self.suffixes.contains(where: { bareHost.hasSuffix($0) }), !IPAddressRange.isLiteral(bareHost) else {
            throw refused
        }
        let addresses = await Self.resolve(bareHost)
        guard !addresses.isEmpty, addresses.allSatisfy(IPAddressRange.isPublic) else { throw refused }
        return origin
    }

    /// What a send finds when it checks an endpoint again.
    public enum Recheck: Sendable, Equatable {
        case allowed(origin: String)
        /// No longer allowed (the list changed, or the name now leads to a private address).
        case refused
        /// The name did not resolve just now (a resolver's hiccup): try again later.
        case unresolved
    }

    /// `target(of:)` before a send, telling a name that does not resolve right now (retry) from
    /// one that is refused (the subscription goes).
    public func recheck(_ endpoint: String) async -> Recheck {
        do {
            return .allowed(origin: try await self.target(of: endpoint))
        } catch {
            guard let host = URLComponents(string: endpoint)?.host?.lowercased(), self.suffixes.contains(where: { host.hasSuffix($0) }),
                await Self.resolve(host).isEmpty
            else { return .refused }
            return .unresolved
        }
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        Self.isHexDigit(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ":")
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
    }

    /// The host's addresses (raw, 4 or 16 bytes), from the system's resolver on a thread of its
    /// own (`getaddrinfo` blocks); none when it does not resolve.
    static func resolve(_ host: String) async -> [[UInt8]] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var hints = addrinfo()
                hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
                var list: UnsafeMutablePointer<addrinfo>?
                guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else {
                    continuation.resume(returning: [])
                    return
                }
                defer { freeaddrinfo(first) }
                var addresses: [[UInt8]] = []
                var node: UnsafeMutablePointer<addrinfo>? = first
                while let current = node {
                    if let address = current.pointee.ai_addr {
                        switch Int32(address.pointee.sa_family) {
                        case AF_INET:
                            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                                addresses.append(withUnsafeBytes(of: ipv4.pointee.sin_addr) { Array($0) })
                            }
                        case AF_INET6:
                            address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                                addresses.append(withUnsafeBytes(of: ipv6.pointee.sin6_addr) { Array($0) })
                            }
                        default:
                            break
                        }
                    }
                    node = current.pointee.ai_next
                }
                continuation.resume(returning: addresses)
            }
        }
    }
}

/// The address ranges a push endpoint may not reach unless listed by name.
enum IPAddressRange {
    /// Whether `host` is an IPv4 or IPv6 literal.
    static func isLiteral(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// Whether a raw address (4 or 16 bytes) is a public unicast one.
    static func isPublic(_ address: [UInt8]) -> Bool {
        if address.count == 4 { return self.isPublicV4(address) }
        guard address.count == 16 else { return false }
        // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses are their IPv4 address.
        if address[0..<10].allSatisfy({ $0 == 0 }) && (address[10..<12].allSatisfy({ $0 == 0xFF }) || address[10..<12].allSatisfy({ $0 == 0 })) {
            return self.isPublicV4(Array(address[12..<16]))
        }
        let first = address[0]
        if first == 0 { return false }  // ::, ::1 and the rest of ::/8
        if first & 0xFE == 0xFC { return false }  // fc00::/7 unique local
        if first == 0xFE && address[1] & 0xC0 == 0x80 { return false }  // fe80::/10 link-local
        if first == 0xFE && address[1] & 0xC0 == 0xC0 { return false }  // fec0::/10 site-local
        if first == 0xFF { return false }  // multicast
        if first == 0x20 && address[1] == 0x01 && address[2] == 0x0D && address[3] == 0xB8 { return false }  // documentation
        if first == 0x00 || (first == 0x01 && address[1] == 0x00) { return false }  // discard-only
        if first == 0x20 && address[1] == 0x02 { return self.isPublicV4(Array(address[2..<6])) }  // 6to4 carries an IPv4 address
        return true
    }

    static func isPublicV4(_ a: [UInt8]) -> Bool {
        switch (a[0], a[1]) {
        case (0, _), (10, _), (127, _): return false  // this network, private, loopback
        case (100, 64...127): return false  // shared (carrier-grade NAT)
        case (169, 254): return false  // link-local, the cloud metadata service
        case (172, 16...31), (192, 168): return false  // private
        case (192, 0) where a[2] == 0 || a[2] == 2: return false  // protocol assignments, documentation
        case (198, 18...19): return false  // benchmarking
        case (198, 51) where a[2] == 100, (203, 0) where a[2] == 113: return false  // documentation
        case (224...255, _): return false  // multicast, reserved, broadcast
        default: return true
        }
    }
}

/// Checks of a browser's Web Push keys.
enum WebPushKeys {
    static func isValidPoint(_ bytes: [UInt8]) -> Bool {
        (try? WebPushEncryption.browserKey(bytes)) != nil
    }
}
