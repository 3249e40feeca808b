import Foundation
import HTTPTypes
import HummingbirdTesting
import SoomDomain
import Testing

@testable import SoomHTTP

/// Issue 43's upload abuse against the real server: animated and damaged pictures refused, the uploads'
/// own rate limit, and the daily byte quota, exact under concurrent uploads of one account.
@Suite("Images: animation and damage refused, uploads rate-limited and under a daily quota")
struct ImageAbuseTests {
    static let jpeg = try! PhotoFixtures.bytes("jpeg-baseline.jpg")

    /// The issue's files, each with its `Content-Type`.
    static func refusedFiles() throws -> [(name: String, bytes: [UInt8], type: String)] {
        let animated = try PhotoFixtures.bytes("webp-animated.webp")
        let png = try PhotoFixtures.bytes("png-metadata.png")
        let lossless = try PhotoFixtures.bytes("webp-lossless.webp")
        var files: [(String, [UInt8], String)] = [("animated WebP", animated, "image/webp")]
        // acTL, as APNG writes it, after IHDR.
        files.append(
            (
                "animated PNG", Array(png[0..<33]) + [0, 0, 0, 8] + Array("acTL".utf8) + [0, 0, 0, 2, 0, 0, 0, 0, 1, 2, 3, 4] + png[33...],
                "image/png"
            ))
        // 30 bytes: the RIFF header and a VP8X of 64 × 48, no image.
        files.append(
            ("VP8X only", Array("RIFF".utf8) + [22, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0, 0, 0, 0, 0, 63, 0, 0, 47, 0, 0], "image/webp"))
        var canvas = lossless
        canvas.replaceSubrange(24..<30, with: [0xFF, 0x1F, 0, 0x11, 0x13, 0])  // 8192 × 4882 over 64 × 48
        files.append(("canvas larger than the bitstream", canvas, "image/webp"))
        let sof = try #require((2..<(Self.jpeg.count - 9)).last { Self.jpeg[$0] == 0xFF && Self.jpeg[$0 + 1] == 0xC0 })
        for components: UInt8 in [0, 255] {
            var jpeg = Self.jpeg
            jpeg[sof + 9] = components
            files.append(("JPEG of \(components) components", jpeg, "image/jpeg"))
        }
        var depth = png
        depth[24] = 99
        files.append(("PNG of bit depth 99", depth, "image/png"))
        var colourType = png
        colourType[25] = 77
        files.append(("PNG of colour type 77", colourType, "image/png"))
        return files
    }

    @Test("animated and damaged pictures: 422 validation_failed on image, a message without offsets, nothing stored")
    func refused() async throws {
        let files = try Self.refusedFiles()
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            for file in files {
                let response = try await client.upload(file.bytes, type: file.type, token: token)
                let message = ((try? response.object)?["error"] as? [String: Any])?["message"] as? String ?? ""
                #expect(
                    response.status == .unprocessableContent && response.errorCode == "validation_failed" && response.errorField == "image",
                    "\(file.name): \(message)")
                #expect(message.range(of: #"\b(at|offset|byte)\s*\d"#, options: .regularExpression) == nil, "\(file.name): \(message)")
                if file.name.hasPrefix("animated") { #expect(message.contains("animated"), "\(message)") }
            }
            #expect(try await database.scalar("SELECT count(*)::int FROM images") == 0)
        }
    }

    @Test("uploads have a rate limit of their own: 429 rate_limited with Retry-After once used up; other routes unaffected")
    func uploadRateLimit() async throws {
        var limits = RateLimits()
        limits.uploads = RateLimits.Rule(count: 3, window: 3600)
        try await withTestApp(rateLimits: limits) { client, database in
            let tokens = try await database.makeAccounts(2)
            var remaining: [String?] = []
            for _ in 0..<3 {
                let response = try await client.upload(Self.jpeg, type: "image/jpeg", token: tokens[0])
                #expect(response.status == .created && response.headers[.rateLimitLimit] == "3")
                remaining.append(response.headers[.rateLimitRemaining])
            }
            #expect(remaining == ["2", "1", "0"])
            let refused = try await client.upload(Self.jpeg, type: "image/jpeg", token: tokens[0])
            #expect(refused.status == .tooManyRequests && refused.errorCode == "rate_limited")
            let retry = try #require(refused.headers[.retryAfter].flatMap(Int.init))
            #expect((3590...3600).contains(retry))
            #expect(try await database.scalar("SELECT count(*)::int FROM images") == 3)
            let other = try await client.send(.get, "/v1/me", token: tokens[0])
            #expect(other.status == .ok && other.headers[.rateLimitLimit] == "\(RateLimits().general.count)")
            #expect(try await client.upload(Self.jpeg, type: "image/jpeg", token: tokens[1]).status == .created)
        }
    }

    @Test("the daily quota: an upload past 100 MiB within 24 hours is 429 rate_limited until the oldest counted one ages out")
    func quota() async throws {
        try await withTestApp(rateLimits: Self.quotaOnly) { client, database in
            let token = try await database.makeAccounts(1)[0]
            let owner = try #require(UUID(uuidString: try await client.accountID(token)))
            let first = try await client.upload(Self.jpeg, type: "image/jpeg", token: token)
            let size = try #require(try first.object["byteCount"] as? Int)
            // Uploads of an hour and of two days ago: the quota left is exactly two more of this size.
            try await Self.insertUpload(database, owner: owner, bytes: UploadQuota.default.bytes - 3 * size, age: 3600)
            try await Self.insertUpload(database, owner: owner, bytes: UploadQuota.default.bytes, age: 2 * 86_400)
            for _ in 0..<2 { #expect(try await client.upload(Self.jpeg, type: "image/jpeg", token: token).status == .created) }
            let refused = try await client.upload(Self.jpeg, type: "image/jpeg", token: token)
            #expect(refused.status == .tooManyRequests && refused.errorCode == "rate_limited", "\(String(buffer: refused.body))")
            // The hour-old upload must age out first: in 23 hours.
            let retry = try #require(refused.headers[.retryAfter].flatMap(Int.init))
            #expect((82_700...82_800).contains(retry), "\(retry)")
            #expect(try await database.scalar("SELECT count(*)::int FROM images") == 5)
            // Once it has aged out (here: moved back a day), there is room again.
            try await database.execute("UPDATE images SET created_at = created_at - interval '1 day' WHERE byte_count > \(size)")
            #expect(try await client.upload(Self.jpeg, type: "image/jpeg", token: token).status == .created)
        }
    }

    @Test("the quota is exact under concurrent uploads of one account: room for one, eight at once, one stored")
    func quotaUnderConcurrency() async throws {
        try await withTestApp(rateLimits: Self.quotaOnly) { client, database in
            let token = try await database.makeAccounts(1)[0]
            let owner = try #require(UUID(uuidString: try await client.accountID(token)))
            let first = try await client.upload(Self.jpeg, type: "image/jpeg", token: token)
            let size = try #require(try first.object["byteCount"] as? Int)
            try await Self.insertUpload(database, owner: owner, bytes: UploadQuota.default.bytes - size - size * 3 / 2, age: 60)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { Int(try await client.upload(Self.jpeg, type: "image/jpeg", token: token).status.code) } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.sorted() == [201] + Array(repeating: 429, count: 7), "\(statuses)")
            #expect(try await database.scalar("SELECT count(*)::int FROM images") == 3)
            #expect(try await database.scalar("SELECT sum(byte_count)::int FROM images") <= UploadQuota.default.bytes)
        }
    }

    /// An upload row of `bytes` stored bytes, made `age` seconds ago (its own bytes are not needed).
    static func insertUpload(_ database: TestDatabase, owner: UUID, bytes: Int, age: Double) async throws {
        try await database.execute(
            """
            INSERT INTO images (id, owner_id, content_type, byte_count, sha256, bytes, width, height, created_at)
            VALUES (\(UUID()), \(owner), 'image/jpeg', \(bytes), decode('00', 'hex'), NULL, 64, 48, \(Date().addingTimeInterval(-age)))
            """)
    }

    /// The limits on (the quota is one of them, off with them), every count far above what a test sends.
    static var quotaOnly: RateLimits {
        var limits = RateLimits()
        for rule in [\RateLimits.challenges, \.accountCreation, \.posting, \.general, \.uploads] {
            limits[keyPath: rule] = RateLimits.Rule(count: 1_000_000, window: 60)
        }
        return limits
    }
}
