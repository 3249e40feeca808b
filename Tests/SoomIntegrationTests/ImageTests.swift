import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@Suite("Images against PostgreSQL")
struct ImageTests {
    static let png = try! PhotoFixtures.bytes("png-metadata.png")
    static let jpeg = try! PhotoFixtures.bytes("jpeg-baseline.jpg")
    static let webp = try! PhotoFixtures.bytes("webp-lossy.webp")

    func upload(_ client: some TestClientProtocol, _ bytes: [UInt8], type: String?, token: String) async throws -> TestResponse {
        try await client.upload(bytes, type: type, token: token)
    }

    @Test("the built-in backgrounds: at least 12 in at least 4 categories, real PNGs, cacheable")
    func defaults() async throws {
        try await withTestApp { client, _ in
            let list = try await client.send(.get, "/v1/images/defaults")
            let items = try #require(try list.object["items"] as? [[String: Any]])
            #expect(items.count >= 12)
            #expect(Set(items.compactMap { $0["category"] as? String }).count >= 4)
            for item in items {
                let url = try #require(item["url"] as? String)
                let image = try await client.send(.get, url)
                #expect(image.status == .ok, "\(url)")
                #expect(image.headers[.contentType] == "image/png")
                #expect(Array(image.body.readableBytesView.prefix(8)) == Array(Self.png.prefix(8)))
                let etag = try #require(image.headers[.eTag])
                let again = try await client.send(.get, url, headers: [.ifNoneMatch: etag])
                #expect(again.status == .notModified && again.body.readableBytes == 0)
            }
            #expect(try await client.send(.get, "/v1/images/defaults/nope").status == .notFound)
        }
    }

    @Test("uploads: JPEG, PNG and WebP by their bytes, stored without their metadata; served with ETag and immutable caching")
    func uploads() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            for (bytes, type) in [(Self.png, "image/png"), (Self.jpeg, "image/jpeg"), (Self.webp, "image/webp; charset=binary")] {
                let response = try await self.upload(client, bytes, type: type, token: token)
                #expect(response.status == .created, "\(type)")
                let object = try response.object
                #expect(object["contentType"] as? String == type.split(separator: ";")[0].description)
                #expect(object["width"] as? Int == 64 && object["height"] as? Int == 48)
                let url = try #require(object["url"] as? String)
                #expect(response.headers[.location] == url)
                let served = try await client.send(.get, url)
                let stored = Array(served.body.readableBytesView)
                #expect(served.status == .ok && served.headers[.contentType] == type.split(separator: ";")[0].description)
                // byteCount is the stored size: the metadata is gone, so it is smaller than the upload.
                #expect(object["byteCount"] as? Int == stored.count && stored.count < bytes.count)
                let text = String(decoding: stored, as: UTF8.self)
                for secret in PhotoFixtures.secrets { #expect(!text.contains(secret), "\(type): \(secret)") }
                #expect(served.headers[.cacheControl] == "public, max-age=31536000, immutable")
                #expect(served.headers[.init("X-Content-Type-Options")!] == "nosniff")
                let etag = try #require(served.headers[.eTag])
                let notModified = try await client.send(.get, url, headers: [.ifNoneMatch: "W/\"0000\", \(etag)"])
                #expect(notModified.status == .notModified && notModified.body.readableBytes == 0 && notModified.headers[.eTag] == etag)
                #expect(try await client.send(.get, url, headers: [.ifNoneMatch: "\"\(String(repeating: "0", count: 64))\""]).status == .ok)
                #expect(try await client.send(.get, url, headers: [.ifNoneMatch: "*"]).status == .notModified)
            }
            #expect(try await client.send(.get, "/v1/images/\(UUID())").status == .notFound)
            #expect(try await client.send(.get, "/v1/images/not-an-id").status == .notFound)
        }
    }

    @Test("If-None-Match is answered from the image's digest without reading its bytes")
    func conditionalWithoutBytes() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            let url = try #require(try await self.upload(client, Self.jpeg, type: "image/jpeg", token: token).object["url"] as? String)
            let etag = try #require(try await client.send(.get, url).headers[.eTag])
            // With the bytes gone from the row, only a request that needs them could notice.
            try await database.execute("UPDATE images SET bytes = decode('00', 'hex')")
            #expect(try await client.send(.get, url, headers: [.ifNoneMatch: etag]).status == .notModified)
            #expect(Array(try await client.send(.get, url).body.readableBytesView) == [0])
        }
    }

    @Test("malformed, truncated and oversized pictures of each format: 422 on image, nothing stored")
    func unreadable() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            var cases: [([UInt8], String)] = []
            for (bytes, type) in [(Self.png, "image/png"), (Self.jpeg, "image/jpeg"), (Self.webp, "image/webp")] {
                cases.append((Array(bytes.prefix(bytes.count / 2)), type))
                cases.append((Array(bytes.prefix(40)), type))
                cases.append((Array(bytes.prefix(16)) + Array(repeating: 0xFF, count: 300), type))
            }
            // Headers that claim 50,000 × 50,000 pixels (the last SOF: the first is the EXIF thumbnail's).
            var png = Self.png
            png.replaceSubrange(16..<24, with: [0, 0, 0xC3, 0x50, 0, 0, 0xC3, 0x50])
            cases.append((png, "image/png"))
            var jpeg = Self.jpeg
            let sof = try #require((2..<(jpeg.count - 9)).last { jpeg[$0] == 0xFF && (jpeg[$0 + 1] == 0xC0 || jpeg[$0 + 1] == 0xC2) })
            jpeg.replaceSubrange((sof + 5)..<(sof + 9), with: [0xC3, 0x50, 0xC3, 0x50])
            cases.append((jpeg, "image/jpeg"))
            for (bytes, type) in cases {
                let response = try await self.upload(client, bytes, type: type, token: token)
                #expect(
                    response.status == .unprocessableContent && response.errorField == "image",
                    "\(type) \(bytes.count): \(String(buffer: response.body))")
            }
            #expect(try await database.scalar("SELECT count(*)::int FROM images") == 0)
        }
    }

    @Test("refused uploads: wrong bytes, wrong or missing type, empty, 6 MiB — and nothing is stored")
    func refusals() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            let cases: [([UInt8], String?, Int)] = [
                (Self.png, "image/jpeg", 415), (Array("GIF89a-----".utf8), "image/png", 415), (Self.png, "image/gif", 415),
                (Self.png, nil, 415), ([], "image/png", 415), (Self.png + Array(repeating: 0, count: 6 * 1024 * 1024), "image/png", 413),
                (Self.webp, "image/png", 415), (Self.jpeg, "image/webp", 415),
            ]
            for (bytes, type, status) in cases {
                let response = try await self.upload(client, bytes, type: type, token: token)
                #expect(response.status.code == status, "\(type ?? "none") \(bytes.count)")
                #expect(response.errorCode == (status == 413 ? "payload_too_large" : "unsupported_media_type"))
            }
            #expect(try await self.upload(client, Self.png, type: "image/png", token: "").status == .unauthorized)
            #expect(try await database.scalar("SELECT count(*)::int FROM images") == 0)
        }
    }

    @Test("an upload is a background only for its uploader")
    func ownership() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(2)
            let id = try #require(try await self.upload(client, Self.png, type: "image/png", token: tokens[0]).object["id"] as? String)
            let card = try await client.postCard(tokens[0], extra: ["background": ["imageId": id]])
            let background = try #require(card["background"] as? [String: Any])
            #expect(background["kind"] as? String == "upload" && background["imageId"] as? String == id)
            #expect(background["url"] as? String == "/v1/images/\(id)")
            let foreign = try await client.send(.post, "/v1/cards", json: ["content": "x", "background": ["imageId": id]], token: tokens[1])
            #expect(foreign.status == .unprocessableContent && foreign.errorField == "background")
            let profile = try await client.send(.patch, "/v1/me", json: ["profileImage": ["imageId": id]], token: tokens[0])
            #expect(profile.status == .ok)
            #expect(try await database.scalar("SELECT count(*)::int FROM cards") == 1)
        }
    }
}
