import Foundation
import SoomDomain
import Testing

@testable import SoomHTTP

@Suite("JSONWriter: the card responses' JSON")
struct JSONWriterTests {
    static func parse(_ writer: JSONWriter) throws -> Any {
        var buffer = writer.buffer
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        return try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }

    @Test("strings round-trip exactly: quotes, backslashes, every control character, Hangul, emoji, slashes")
    func strings() throws {
        let controls = String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) })
        let samples = [
            "", "plain", "\"quoted\" \\ back\\slash", controls, "숨 쉬는 하늘 🌙👩‍👩‍👧", "a/b</script>", "\u{2028}\u{2029}\u{7F}", "tab\tnew\nline\r",
        ]
        for sample in samples {
            var writer = JSONWriter()
            writer.string(sample)
            #expect(try Self.parse(writer) as? String == sample, "\(sample.debugDescription)")
        }
        var writer = JSONWriter()
        writer.string("a/b")
        #expect(String(buffer: writer.buffer) == #""a/b""#)
    }

    @Test("separators: nested objects and arrays, empty ones, nulls and numbers")
    func structure() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("a")
        writer.beginArray()
        writer.int(1)
        writer.int(-2)
        writer.beginObject()
        writer.endObject()
        writer.beginArray()
        writer.endArray()
        writer.null()
        writer.endArray()
        writer.key("b")
        writer.double(12.5)
        writer.key("c")
        writer.double(.nan)
        writer.key("d")
        writer.bool(true)
        writer.key("e")
        writer.uuid(UUID(uuidString: "0A1B2C3D-4E5F-6789-ABCD-EF0123456789"))
        writer.key("f")
        writer.timestamp(Date(timeIntervalSince1970: 1_795_836_696.123))
        writer.endObject()
        #expect(
            String(buffer: writer.buffer)
                == #"{"a":[1,-2,{},[],null],"b":12.5,"c":null,"d":true,"e":"0a1b2c3d-4e5f-6789-abcd-ef0123456789","f":"2026-11-28T03:31:36.123Z"}"#)
    }

    @Test("a card list has every member of the contract's Card, with the contract's types")
    func cardList() throws {
        let author = UserSummary(id: UUID(), nickname: "별 \"빛\"", profileImage: .upload(id: "img1"))
        let card = Card(
            id: UUID(), content: "첫 줄\n둘째 줄 \"인용\"", font: .serif, background: .builtIn(name: "sea-calm"), tags: ["하늘", "Sky_1"],
            author: author, parentID: UUID(), parentDeleted: true, createdAt: Date(timeIntervalSince1970: 1_795_836_696.5),
            expiresAt: nil, likeCount: 3, commentCount: 0, likedByMe: true, isMine: false, distanceMeters: 2000)
        let plain = Card(
            id: UUID(), content: "x", font: .default, background: .upload(id: "bg"), tags: [],
            author: UserSummary(id: UUID(), nickname: "n", profileImage: nil), parentID: nil, parentDeleted: false,
            createdAt: Date(timeIntervalSince1970: 0), expiresAt: Date(timeIntervalSince1970: 86_400), likeCount: 0, commentCount: 7,
            likedByMe: false, isMine: true, distanceMeters: nil,
            poll: Poll(
                options: [.init(text: "가 \"나\"", voteCount: 2), .init(text: "b", voteCount: 1)], multiple: true, voterCount: 2,
                myVotes: Ballot(bits: 3), closesAt: Date(timeIntervalSince1970: 3_600), closed: true))
        var writer = JSONWriter()
        CardListBody(cards: [card, plain], nextCursor: "abc").write(to: &writer)
        let list = try #require(try Self.parse(writer) as? [String: Any])
        #expect(list["nextCursor"] as? String == "abc")
        let items = try #require(list["items"] as? [[String: Any]])
        #expect(items.count == 2)
        let first = items[0]
        #expect(
            Set(first.keys) == [
                "id", "content", "font", "background", "tags", "author", "parentId", "parentDeleted", "createdAt", "expiresAt", "likeCount",
                "commentCount", "viewCount", "likedByMe", "commentedByMe", "isMine", "distanceMeters", "poll", "pinned",
            ])
        #expect(first["poll"] is NSNull && first["pinned"] as? Bool == false)
        #expect(first["id"] as? String == card.id.uuidString.lowercased())
        #expect(first["content"] as? String == card.content)
        #expect(first["font"] as? String == "serif")
        #expect(first["background"] as? [String: String] == ["kind": "default", "name": "sea-calm", "url": "/v1/images/defaults/sea-calm"])
        #expect(first["tags"] as? [String] == ["하늘", "Sky_1"])
        let firstAuthor = try #require(first["author"] as? [String: Any])
        #expect(firstAuthor["nickname"] as? String == "별 \"빛\"")
        #expect(firstAuthor["profileImage"] as? [String: String] == ["kind": "upload", "imageId": "img1", "url": "/v1/images/img1"])
        #expect(first["parentId"] as? String == card.parentID?.uuidString.lowercased())
        #expect(first["parentDeleted"] as? Bool == true)
        #expect(first["createdAt"] as? String == "2026-11-28T03:31:36.500Z")
        #expect(first["expiresAt"] is NSNull)
        #expect(first["likeCount"] as? Int == 3)
        #expect(first["likedByMe"] as? Bool == true)
        #expect(first["isMine"] as? Bool == false)
        #expect(first["distanceMeters"] as? Int == 2000)
        let second = items[1]
        #expect(second["parentId"] is NSNull)
        #expect(second["distanceMeters"] is NSNull)
        #expect(second["tags"] as? [String] == [])
        #expect(second["expiresAt"] as? String == "1970-01-02T00:00:00.000Z")
        #expect((second["author"] as? [String: Any])?["profileImage"] is NSNull)
        #expect((second["author"] as? [String: Any])?["isOperator"] as? Bool == false)
        let poll = try #require(second["poll"] as? [String: Any])
        #expect(Set(poll.keys) == ["options", "multiple", "voterCount", "myVotes", "closesAt", "closed"])
        #expect((poll["options"] as? [[String: Any]])?.map { $0["text"] as? String } == ["가 \"나\"", "b"])
        #expect((poll["options"] as? [[String: Any]])?.map { $0["voteCount"] as? Int } == [2, 1])
        #expect(poll["multiple"] as? Bool == true && poll["voterCount"] as? Int == 2 && poll["closed"] as? Bool == true)
        #expect(poll["myVotes"] as? [Int] == [0, 1] && poll["closesAt"] as? String == "1970-01-01T01:00:00.000Z")

        var empty = JSONWriter()
        CardListBody(cards: [], nextCursor: nil).write(to: &empty)
        #expect(String(buffer: empty.buffer) == #"{"items":[],"nextCursor":null}"#)

        // Cards from kept cards or nearby chunk entries: each card's common members (a poll's
        // included) are written once into its memo; each reader's distance, flags and ballot (and a
        // count their own like made newer) are their own, and the bytes are what writing each card gives.
        let memos = [JSONMemo<SharedCardJSON>(), JSONMemo<SharedCardJSON>()]
        let readers: [(UUID, Double, Int?, Ballot)] = [
            (card.author.id, 300, nil, .none), (plain.author.id, 2_000, card.likeCount + 1, Ballot(bits: 2)), (UUID(), 100, nil, Ballot(bits: 1)),
        ]
        for (viewer, metres, likeCount, ballot) in readers {
            let page = [card, plain].map {
                $0.measured(metres).seen(
                    by: viewer, liked: likeCount != nil && $0.id == card.id, likeCount: $0.id == card.id ? likeCount : nil, ballot: ballot)
            }
            var direct = JSONWriter()
            CardListBody(cards: page, nextCursor: nil).write(to: &direct)
            var fromMemos = JSONWriter()
            CardListBody(cards: page, nextCursor: nil, shared: .cards(memos)).write(to: &fromMemos)
            #expect(fromMemos.bytes == direct.bytes, "distance \(metres)")
        }
        #expect(memos.map { $0.value { SharedCardJSON(card) }.id } == [card.id, plain.id], "the first reader's write filled the memos")
        // A reader who liked a card carries their own count for it: they do not fill its memo.
        let untouched = JSONMemo<SharedCardJSON>()
        var liker = JSONWriter()
        CardListBody(
            cards: [card.seen(by: plain.author.id, liked: true, likeCount: card.likeCount + 1)], nextCursor: nil, shared: .cards([untouched])
        )
        .write(to: &liker)
        #expect(untouched.peek() == nil)
        // Memos that do not match the page's cards one for one are not used.
        var mismatched = JSONWriter()
        CardListBody(cards: [plain, card], nextCursor: nil, shared: .cards(memos)).write(to: &mismatched)
        var plainly = JSONWriter()
        CardListBody(cards: [plain, card], nextCursor: nil).write(to: &plainly)
        #expect(mismatched.bytes == plainly.bytes)
    }

    @Test("times are RFC 3339 UTC with milliseconds, truncated, also before 1970 and at leap days")
    func timestamps() {
        #expect(JSON.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(JSON.timestamp(Date(timeIntervalSince1970: 1_795_346_296.1239)) == "2026-11-22T11:18:16.123Z")
        #expect(JSON.timestamp(Date(timeIntervalSince1970: 951_782_400.5)) == "2000-02-29T00:00:00.500Z")
        #expect(JSON.timestamp(Date(timeIntervalSince1970: -0.001)) == "1969-12-31T23:59:59.999Z")
        #expect(JSON.timestamp(Date(timeIntervalSince1970: 253_402_300_799.999)) == "9999-12-31T23:59:59.999Z")
    }
}
