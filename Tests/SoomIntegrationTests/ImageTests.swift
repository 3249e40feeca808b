import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@Suite("Images against PostgreSQL")
struct ImageTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 100)
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 1, count: 100)
    static let webp: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8) + Array(repeating: 2, count: 100)

    func upload(_ client: some TestClientProtocol, _ bytes: [UInt8], type: String?, token: String) async throws -> TestResponse {
        var headers: HTTPFields = [.authorization: "Bearer \(token)"]
        if let type { headers[.contentType] = type }
        return try await client.execute(uri: "/v1/images", method: .post, headers: headers, body: ByteBuffer(bytes: bytes))
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

    @Test("uploads: JPEG, PNG and WebP by their bytes; served with ETag and immutable caching")
    func uploads() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            for (bytes, type) in [(Self.png, "image/png"), (Self.jpeg, "image/jpeg"), (Self.webp, "image/webp; charset=binary")] {
                let response = try await self.upload(client, bytes, type: type, token: token)
                #expect(response.status == .created, "\(type)")
                let object = try response.object
                #expect(object["byteCount"] as? Int == bytes.count)
                #expect(object["contentType"] as? String == type.split(separator: ";")[0].description)
                let url = try #require(object["url"] as? String)
                #expect(response.headers[.location] == url)
                let served = try await client.send(.get, url)
                #expect(served.status == .ok && Array(served.body.readableBytesView) == bytes)
                #expect(served.headers[.cacheControl] == "public, max-age=31536000, immutable")
                let etag = try #require(served.headers[.eTag])
                #expect(try await client.send(.get, url, headers: [.ifNoneMatch: etag]).status == .notModified)
            }
            #expect(try await client.send(.get, "/v1/images/\(UUID())").status == .notFound)
            #expect(try await client.send(.get, "/v1/images/not-an-id").status == .notFound)
        }
    }

    @Test("refused uploads: wrong bytes, wrong or missing type, empty, 6 MiB — and nothing is stored")
    func refusals() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            let cases: [([UInt8], String?, Int)] = [
                (Self.png, "image/jpeg", 415), (Array("GIF89a-----".utf8), "image/png", 415), (Self.png, "image/gif", 415),
                (Self.png, nil, 415), ([], "image/png", 415), (Self.png + Array(repeating: 0, count: 6 * 1024 * 1024), "image/png", 413),
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
