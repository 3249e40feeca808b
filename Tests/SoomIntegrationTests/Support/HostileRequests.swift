import Foundation
import HTTPTypes

/// A seeded random source (SplitMix64): the same seed makes the same requests, so a failure
/// found once can be replayed with `SOOM_FUZZ_SEED`.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        self.state = seed
    }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// JSON as text, including what a real encoder would never write (numbers out of any range,
/// raw bytes that are not UTF-8), so that the server's decoder sees hostile input as it arrives.
indirect enum HostileJSON {
    case object([(String, HostileJSON)])
    case array([HostileJSON])
    case string(String)
    /// A number token exactly as written (`1e400`, `-0`, `99999999999999999999`).
    case number(String)
    case bool(Bool)
    case null
    /// Bytes placed as they are, valid JSON or not.
    case raw([UInt8])

    var bytes: [UInt8] {
        switch self {
        case .object(let members):
            var out: [UInt8] = Array("{".utf8)
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += Array(",".utf8) }
                out += HostileJSON.string(key).bytes + Array(":".utf8) + value.bytes
            }
            return out + Array("}".utf8)
        case .array(let items):
            var out: [UInt8] = Array("[".utf8)
            for (index, item) in items.enumerated() {
                if index > 0 { out += Array(",".utf8) }
                out += item.bytes
            }
            return out + Array("]".utf8)
        case .string(let text):
            var out: [UInt8] = Array("\"".utf8)
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += Array("\\\"".utf8)
                case "\\": out += Array("\\\\".utf8)
                case _ where scalar.value < 0x20: out += Array(String(format: "\\u%04x", scalar.value).utf8)
                default: out += Array(String(scalar).utf8)
                }
            }
            return out + Array("\"".utf8)
        case .number(let token): return Array(token.utf8)
        case .bool(let value): return Array((value ? "true" : "false").utf8)
        case .null: return Array("null".utf8)
        case .raw(let bytes): return bytes
        }
    }
}

/// Makes malformed and hostile requests for a route: bad path IDs, bad query values, and bodies
/// that start from a valid one and break it (wrong types, missing and unknown fields, strings too
/// long or with NUL and control characters, arrays too long, numbers out of range, enum values
/// that do not exist, deep nesting, invalid UTF-8, truncation, random bytes).
struct HostileRequests {
    var random: SeededGenerator
    /// Ids that exist (cards, accounts, images), so that some requests reach the deeper checks.
    let knownIDs: [String]
    let token: String

    struct Generated {
        let method: HTTPRequest.Method
        let uri: String
        let headers: HTTPFields
        let body: [UInt8]?
    }

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &self.random) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items.randomElement(using: &self.random)! }

    // MARK: Atoms

    mutating func hostileString() -> String {
        switch Int.random(in: 0..<16, using: &self.random) {
        case 0: return ""
        case 1: return "   "
        case 2: return "a\u{0}b"
        case 3: return "\u{0}"
        case 4: return String(repeating: "가", count: Int.random(in: 150...700, using: &self.random))
        case 5: return String(repeating: "x", count: Int.random(in: 5_000...20_000, using: &self.random))
        case 6: return "\u{1}\u{7}\u{1B}[31m\u{7F}"
        case 7: return "😀👨‍👩‍👧‍👦🏳️‍🌈" + String(repeating: "\u{301}", count: 200)
        case 8: return "\u{FEFF}\u{200B}\u{202E}abc"
        case 9: return "'; DROP TABLE cards; --"
        case 10: return "%00%ff%2e%2e%2f"
        case 11: return "#" + String(repeating: "태그", count: 20)
        case 12: return "\u{D7FF}\u{E000}\u{FFFD}\u{10FFFF}"
        case 13: return "null"
        case 14: return "sea-calm\u{0}"
        default: return UUID().uuidString
        }
    }

    mutating func hostileNumber() -> String {
        self.pick([
            "1e400", "-1e400", "-0", "0", "-1", "1.5", "99999999999999999999999", "-9223372036854775809", "9223372036854775808",
            "1e-400", "51", "1000000", "2147483648", "NaN", "Infinity", "0x10", "1_000", "+1", ".5", "1e2",
        ])
    }

    mutating func hostileValue(depth: Int = 0) -> HostileJSON {
        switch Int.random(in: 0..<9, using: &self.random) {
        case 0: return .string(self.hostileString())
        case 1: return .number(self.hostileNumber())
        case 2: return .bool(self.chance(50))
        case 3: return .null
        case 4: return depth > 2 ? .null : .array((0..<Int.random(in: 0...12, using: &self.random)).map { _ in self.hostileValue(depth: depth + 1) })
        case 5: return depth > 2 ? .null : .object([(self.pick(["default", "imageId", "latitude", "x", ""]), self.hostileValue(depth: depth + 1))])
        case 6: return .array((0..<Int.random(in: 11...200, using: &self.random)).map { .string("t\($0)") })
        case 7: return .string(self.pick(["sea-calm", "nope", "serif", "comic", "abuse", "spam", "rsa-pss-sha256", "rsa-pss-sha512", "true"]))
        default: return .raw([0xFF, 0xFE, 0x22])
        }
    }

    // MARK: Bodies

    /// A valid-looking body for the route, before it is broken.
    func template(_ method: HTTPRequest.Method, _ path: String) -> [(String, HostileJSON)]? {
        let proof: [(String, HostileJSON)] = [
            ("publicKey", .string("-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----")),
            ("algorithm", .string("rsa-pss-sha256")), ("challengeId", .string("AAAA")), ("signature", .string("c2lnbmF0dXJl")),
        ]
        let card: [(String, HostileJSON)] = [
            ("content", .string("카드")), ("font", .string("serif")), ("background", .object([("default", .string("sea-calm"))])),
            ("tags", .array([.string("하늘"), .string("sky")])), ("story", .bool(false)),
            ("location", .object([("latitude", .number("37.5")), ("longitude", .number("127.0"))])),
        ]
        switch (method, path) {
        case (.post, "/v1/accounts"): return proof + [("nickname", .string("새사람")), ("profileImage", .object([("default", .string("sea-calm"))]))]
        case (.post, "/v1/sessions"): return proof
        case (.post, "/v1/accounts/transfer"): return [("code", .string("ABCD-EFGH"))] + proof
        case (.patch, "/v1/me"): return [("nickname", .string("별명")), ("bio", .string("소개")), ("profileImage", .null)]
        case (.delete, "/v1/me"): return [("reason", .string("그냥"))] + proof.dropFirst()
        case (.post, "/v1/me/transfer-codes"): return Array(proof.dropFirst())
        case (.post, "/v1/nicknames/validation"): return [("nickname", .string("별명"))]
        case (.post, "/v1/cards"), (.post, "/v1/cards/{id}/comments"): return card
        case (.post, "/v1/cards/{id}/reports"): return [("reason", .string("abuse"))]
        default: return nil
        }
    }

    /// Breaks a template in one to three ways.
    mutating func broken(_ template: [(String, HostileJSON)]) -> HostileJSON {
        var members = template
        for _ in 0..<Int.random(in: 1...3, using: &self.random) {
            guard !members.isEmpty else { break }
            let index = Int.random(in: 0..<members.count, using: &self.random)
            switch Int.random(in: 0..<6, using: &self.random) {
            case 0: members.remove(at: index)
            case 1: members.append((self.hostileString(), self.hostileValue()))
            case 2: members.append((members[index].0, self.hostileValue()))  // a duplicate key
            default: members[index].1 = self.hostileValue()
            }
        }
        return .object(members)
    }

    /// Whole-body corruptions that no field-level change makes.
    mutating func corrupted(_ body: [UInt8]) -> [UInt8] {
        switch Int.random(in: 0..<8, using: &self.random) {
        case 0: return Array(body.prefix(Int.random(in: 0...max(0, body.count - 1), using: &self.random)))
        case 1: return Array(repeating: UInt8(ascii: "["), count: Int.random(in: 100...5_000, using: &self.random))
        case 2: return Array(repeating: UInt8(ascii: "["), count: 600) + Array(repeating: UInt8(ascii: "]"), count: 600)
        case 3: return body + Array(" garbage".utf8)
        case 4: return (0..<Int.random(in: 1...300, using: &self.random)).map { _ in UInt8.random(in: 0...255, using: &self.random) }
        case 5: return Array(repeating: UInt8(ascii: " "), count: 70_000) + body
        case 6: return body.map { $0 == UInt8(ascii: "a") ? 0xC3 : $0 }  // a lone lead byte: invalid UTF-8
        default: return Array("[]".utf8)
        }
    }

    // MARK: Paths, queries, headers

    mutating func pathID() -> String {
        if self.chance(30), let known = self.knownIDs.randomElement(using: &self.random) { return known }
        return self.pick([
            "abc", "0", "-1", "%00", "%FF%FE", "00000000-0000-0000-0000-000000000000", UUID().uuidString.uppercased(),
            UUID().uuidString + "x", String(repeating: "a", count: 3_000), "%2e%2e", "%E2%80%AE", "null", "{id}", "1e400",
            "%F0%9F%98%80", "sea-calm", "sea-calm%00", "..", "%20",
        ])
    }

    mutating func query() -> String {
        var pairs: [String] = []
        for _ in 0..<Int.random(in: 0...4, using: &self.random) {
            let key = self.pick(["limit", "cursor", "q", "unread", "latitude", "longitude", "radiusKm", "limit", "x"])
            let value = self.pick([
                "-1", "0", "51", "1e400", "NaN", "", "%00", "abc", "20", "1", "true", "TRUE", "yes", "%FF", "91", "-181", "5", "7",
                "djF8bGF0ZXN0fA", "v1|latest|x", "%2B%2F%3D", String(repeating: "9", count: 400), "37.5", "127.0", "50",
                "%EA%B0%80", "%23태그".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "",
            ])
            pairs.append("\(key)=\(value)")
        }
        return pairs.isEmpty ? "" : "?" + pairs.joined(separator: "&")
    }

    mutating func request(_ method: HTTPRequest.Method, _ template: String, signedIn: Bool) -> Generated {
        var path = template
        while let range = path.range(of: "{id}") ?? path.range(of: "{name}") {
            let isName = path[range] == "{name}"
            let value =
                isName && self.chance(60)
                ? (self.hostileString().addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "x")
                : self.pathID()
            path.replaceSubrange(range, with: value)
        }
        var headers = HTTPFields()
        if signedIn {
            headers[.authorization] = "Bearer \(self.token)"
        } else if self.chance(50) {
            headers[.authorization] = self.pick(["Bearer", "Bearer ", "Basic abc", "Bearer \(String(repeating: "A", count: 5_000))", "Bearer %00"])
        }
        if self.chance(10) { headers[HTTPField.Name("Idempotency-Key")!] = self.pick(["", "k", String(repeating: "k", count: 65), "키"]) }
        var body: [UInt8]?
        if path.hasPrefix("/v1/images"), method == .post {
            headers[.contentType] = self.pick(["image/png", "image/jpeg", "image/webp", "image/gif", "text/plain", "application/json"])
            body = self.chance(50) ? Array("\u{89}PNG\r\n\u{1A}\n".utf8) + [0, 0, 0] : self.corrupted(Array("not an image".utf8))
        } else if let template = self.template(method, template) {
            headers[.contentType] = self.chance(90) ? "application/json" : self.pick(["text/plain", "application/json; charset=latin1", ""])
            let json = self.broken(template).bytes
            body = self.chance(20) ? self.corrupted(json) : json
        } else if self.chance(20) {
            headers[.contentType] = "application/json"
            body = self.hostileValue().bytes
        }
        return Generated(method: method, uri: path + self.query(), headers: headers, body: body)
    }
}
