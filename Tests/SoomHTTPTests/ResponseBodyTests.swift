import Foundation
import Hummingbird
import NIOCore
import SoomDomain
import Testing

@testable import SoomHTTP

/// The small response bodies, byte for byte as the contract shows them (members in this order,
/// `null` where the contract says so, optional members left out); errors' JSON and headers; and
/// `StaticFile`'s answers.
@Suite("Response bodies")
struct ResponseBodyTests {
    static func text(_ body: some JSONWritable) -> String {
        var writer = JSONWriter()
        body.write(to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static let id = UUID(uuidString: "00000000-0000-0000-0000-0000000000A1")!
    static let epoch = Date(timeIntervalSince1970: 0)
    static let account = Account(
        id: id, nickname: "별", profileImage: .builtIn(name: "sky-dawn"), bio: "소개\n", createdAt: epoch, cardCount: 1, followerCount: 2,
        followingCount: 3)
    static let me =
        #"{"id":"00000000-0000-0000-0000-0000000000a1","nickname":"별","profileImage":{"kind":"default","name":"sky-dawn","#
        + #""url":"/v1/images/defaults/sky-dawn"},"bio":"소개\n","createdAt":"1970-01-01T00:00:00.000Z","cardCount":1,"#
        + #""followerCount":2,"followingCount":3,"restrictedUntil":null}"#

    @Test("identity: Me, a session, a challenge, a transfer code, nicknames")
    func identity() {
        #expect(Self.text(IdentityResponses.Me(account: Self.account)) == Self.me)
        var restricted = Self.account
        restricted.profileImage = .upload(id: "abc")
        restricted.restrictedUntil = Date(timeIntervalSince1970: 1.5)
        let text = Self.text(IdentityResponses.Me(account: restricted))
        #expect(text.contains(#""profileImage":{"kind":"upload","imageId":"abc","url":"/v1/images/abc"}"#))
        #expect(text.hasSuffix(#""restrictedUntil":"1970-01-01T00:00:01.500Z"}"#))
        let session = SessionToken(token: "tok", expiresAt: Self.epoch)
        #expect(
            Self.text(IdentityResponses.SignedIn(SignedInAccount(account: Self.account, session: session)))
                == #"{"account":"# + Self.me + #","session":{"token":"tok","expiresAt":"1970-01-01T00:00:00.000Z"}}"#)
        let challenge = Challenge(id: "sealed", nonceBytes: Array(repeating: 0, count: 32), expiresAt: Self.epoch)
        #expect(
            Self.text(IdentityResponses.Challenge(challenge))
                == #"{"challengeId":"sealed","nonce":""# + challenge.nonce + #"","expiresAt":"1970-01-01T00:00:00.000Z"}"#)
        #expect(
            Self.text(IdentityResponses.TransferCode(code: "ABCD", expiresAt: Self.epoch))
                == #"{"code":"ABCD","expiresAt":"1970-01-01T00:00:00.000Z"}"#)
        #expect(Self.text(IdentityResponses.NicknameSuggestion(nickname: "고래")) == #"{"nickname":"고래"}"#)
        #expect(Self.text(IdentityResponses.NicknameValidation(available: true, reason: nil)) == #"{"available":true}"#)
        #expect(Self.text(IdentityResponses.NicknameValidation(available: false, reason: "taken")) == #"{"available":false,"reason":"taken"}"#)
    }

    @Test("cards, people, tags and images: likes, follows, blocks, a tag, a favourite, an upload, the backgrounds")
    func others() throws {
        #expect(Self.text(LikeBody(like: LikeState(liked: true, likeCount: 3))) == #"{"liked":true,"likeCount":3}"#)
        #expect(Self.text(FollowBody(following: false, followerCount: 0)) == #"{"following":false,"followerCount":0}"#)
        #expect(Self.text(BlockBody(blocked: true)) == #"{"blocked":true}"#)
        #expect(
            Self.text(TagDetailBody(TagDetail(name: "하늘", usageCount: 2, isFavorite: false)))
                == #"{"name":"하늘","usageCount":2,"isFavorite":false}"#)
        #expect(Self.text(FavoriteBody(favorite: true)) == #"{"favorite":true}"#)
        let image = StoredImage(id: Self.id, ownerID: Self.id, format: .webp, byteCount: 10, sha256: "", width: nil, height: 7, createdAt: Self.epoch)
        #expect(
            Self.text(UploadedImageBody(image: image, url: "/v1/images/x"))
                == #"{"id":"00000000-0000-0000-0000-0000000000a1","url":"/v1/images/x","contentType":"image/webp","byteCount":10,"width":0,"height":7}"#
        )
        let backgrounds = Self.text(DefaultImagesBody())
        let first = try #require(DefaultBackground.all.first)
        #expect(backgrounds.hasPrefix(#"{"items":[{"name":""# + first.name + #"","category":""# + first.category + #"","url":"/v1/images/defaults/"#))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(backgrounds.utf8)) as? [String: [[String: String]]])
        #expect(parsed["items"]?.count == DefaultBackground.all.count)
    }

    @Test("an error: its status, its headers, and {\"error\": {code, message, field?, extra…}}")
    func errors() {
        let conflict = APIError(.conflict, code: "taken", message: #"The "name" is taken."#, field: "nickname", extra: ["until": "soon"])
        let response = conflict.response()
        #expect(response.status == .conflict && response.headers[.contentType] == "application/json; charset=utf-8")
        #expect(
            Self.text(APIError.Body(error: conflict))
                == #"{"error":{"code":"taken","message":"The \"name\" is taken.","field":"nickname","until":"soon"}}"#)
        #expect(Self.text(APIError.Body(error: .notFound)) == #"{"error":{"code":"not_found","message":"There is nothing at this path."}}"#)
        #expect(APIError(.unauthorized, code: "unauthorized", message: "m").headers[.wwwAuthenticate] == "Bearer")
        let limited = APIError.timeout.adding([.rateLimitLimit: "5"])
        #expect(limited.headers[.retryAfter] == "5" && limited.headers[.rateLimitLimit] == "5" && limited.code == "timeout")
    }

    @Test("a static file: 200 with its type and tag, 304 without a body when If-None-Match names the tag")
    func staticFile() {
        let file = StaticFile(buffer: ByteBuffer(string: "body"), contentType: "text/plain", etag: "\"e\"")
        let fresh = file.response(ifNoneMatch: "\"x\"", cacheControl: "no-cache", headers: [.allow: "GET"])
        #expect(fresh.status == .ok && fresh.headers[.contentType] == "text/plain" && fresh.headers[.eTag] == "\"e\"")
        #expect(fresh.headers[.cacheControl] == "no-cache" && fresh.headers[.allow] == "GET" && fresh.body.contentLength == 4)
        for header in ["\"a\", \"e\"", "W/\"e\"", "*"] {
            let cached = file.response(ifNoneMatch: header, cacheControl: StaticFile.immutable)
            #expect(cached.status == .notModified && cached.headers[.contentType] == nil && cached.headers[.eTag] == "\"e\"", "\(header)")
        }
        #expect(!StaticFile.matches(nil, "\"e\"") && !StaticFile.matches("\"x\"", "\"e\""))
    }
}
