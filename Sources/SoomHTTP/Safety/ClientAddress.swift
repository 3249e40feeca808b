#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A client address as the rate limiter counts it: an IPv4 address (an IPv4-mapped IPv6 address
/// is its IPv4 address), the /64 prefix of an IPv6 address, or text it could not parse.
enum ClientAddress: Hashable {
    case v4([UInt8])
    case v6(prefix: [UInt8])
    case unknown(String)

    init(_ text: String) {
        let host = text.split(separator: "%").first.map(String.init) ?? text
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            self = .v4(withUnsafeBytes(of: &v4) { Array($0) })
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else {
            self = .unknown(text)
            return
        }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            self = .v4(Array(bytes[12..<16]))
        } else {
            self = .v6(prefix: Array(bytes[0..<8]))
        }
    }
}
