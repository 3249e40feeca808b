import Foundation
import SoomDomain
import Testing

@Suite("Card rules")
struct CardRuleTests {
    static func draft(
        content: String = "카드", font: String? = nil, background: ImageChoice = .builtIn("sky-dawn"), tags: [String]? = nil,
        story: Bool? = nil, location: (Double, Double)? = nil
    ) throws(SoomError) -> CardDraft {
        try CardDraft(content: content, font: font, background: background, tags: tags, story: story, location: location)
    }

    @Test("content: 1–500 characters as people see them, not only whitespace, no control characters")
    func content() throws {
        #expect(try Self.draft(content: String(repeating: "숨", count: 500)).content.text.count == 500)
        #expect(try Self.draft(content: String(repeating: "😀", count: 500)).content.text.count == 500)
        #expect(try Self.draft(content: String(repeating: "👨‍👩‍👧", count: 300)).content.text.count == 300)
        // 500 of them are 9,000 bytes: over the 6,000 that bound a card's size.
        #expect(throws: SoomError.self) { try Self.draft(content: String(repeating: "👨‍👩‍👧", count: 500)) }
        for bad in ["", "   ", "\n\t", String(repeating: "a", count: 501), "bell\u{7}", "nul\u{0}"] {
            #expect(throws: SoomError.self) { try Self.draft(content: bad) }
        }
        #expect(try Self.draft(content: "줄\n바꿈\t탭").content.text == "줄\n바꿈\t탭")
    }

    @Test("tags: trimmed, NFC, one leading # removed, letters/digits/_ only, 1–15, duplicates ignoring case collapse")
    func tags() throws {
        let tags = try Self.draft(tags: ["#하늘", " 하늘 ", "Sky_1", "sky_1", "#Cafe\u{301}", "café"]).tags.map(\.name)
        #expect(tags == ["하늘", "Sky_1", "Caf\u{E9}"])
        #expect(try Self.draft(tags: ["#" + String(repeating: "가", count: 15)]).tags.count == 1)
        for bad in [["##"], ["#"], ["two words"], ["emoji😀"], [String(repeating: "a", count: 16)], ["a-b"], (0..<11).map { "t\($0)" }] {
            #expect(throws: SoomError.self, "\(bad)") { try Self.draft(tags: bad) }
        }
        #expect(try Self.draft(tags: Array(repeating: "same", count: 30)).tags.count == 1)
        #expect(throws: SoomError.self) { try Self.draft(tags: Array(repeating: "x", count: 51)) }
    }

    @Test("font, background, location and story")
    func otherFields() throws {
        #expect(try Self.draft().font == .default)
        #expect(try Self.draft(font: "handwriting").font == .handwriting)
        #expect(throws: SoomError.validationFailed(field: "font", "font must be one of: default, serif, handwriting, rounded.")) {
            try Self.draft(font: "Serif")
        }
        #expect(throws: SoomError.self) { try Self.draft(background: .builtIn("nope")) }
        #expect(
            try Self.draft(background: .upload("0B9C7A8E-1F1E-4C55-9F8E-0D4E4B2F1C11")).background.reference
                == .upload(id: "0b9c7a8e-1f1e-4c55-9f8e-0d4e4b2f1c11"))
        #expect(throws: SoomError.self) { try Self.draft(background: .upload("ABC")) }
        #expect(throws: SoomError.self) { try Self.draft(location: (90.5, 0)) }
        #expect(throws: SoomError.self) { try Self.draft(location: (0, -180.01)) }
        #expect(throws: SoomError.self) { try Self.draft(location: (.nan, 0)) }
        #expect(try Self.draft(location: (-90, 180)).location == GeoCell(containing: try GeoLocation(latitude: -90, longitude: 180)))
        // The point itself is gone at decoding: only its cell's centre remains.
        let cell = try #require(try Self.draft(location: (37.5641234, 126.9771234)).location)
        #expect(cell.key == "wydm9q" && cell.latitude != 37.5641234 && cell.longitude != 126.9771234)
        #expect(try Self.draft(location: (37.5641234, 126.9771234)).canonicalForm(parentID: nil).contains("wydm9q"))
        #expect(!(try Self.draft(location: (37.5641234, 126.9771234)).canonicalForm(parentID: nil).contains("37.564")))
        let story = NewCard(
            id: UUID(), author: UserSummary(id: UUID(), nickname: "a", profileImage: nil), parentID: nil, draft: try Self.draft(story: true),
            createdAt: Date(timeIntervalSince1970: 0))
        #expect(story.expiresAt == Date(timeIntervalSince1970: 24 * 3600))
    }

    @Test("the canonical form tells different requests apart and the same request alike")
    func canonicalForm() throws {
        let parent = UUID()
        #expect(try Self.draft(tags: ["a", "b"]).canonicalForm(parentID: nil) == Self.draft(tags: ["#a", "b", "B"]).canonicalForm(parentID: nil))
        #expect(try Self.draft().canonicalForm(parentID: nil) != Self.draft().canonicalForm(parentID: parent))
        #expect(try Self.draft(content: "a").canonicalForm(parentID: nil) != Self.draft(content: "b").canonicalForm(parentID: nil))
        #expect(try Self.draft(story: true).canonicalForm(parentID: nil) != Self.draft().canonicalForm(parentID: nil))
    }

    @Test("radius: only 1, 5, 10, 20 and 50 km")
    func radius() throws {
        #expect(try NearbyRadius(kilometres: 50).metres == 50_000)
        for bad in [0, 2, 3, 100, -5] { #expect(throws: SoomError.self) { try NearbyRadius(kilometres: bad) } }
    }
}

@Suite("Feed cursors and page requests")
struct FeedCursorTests {
    static let position = FeedPosition(createdAtMicros: 1_800_000_000_123_456, id: UUID())

    @Test("a cursor reads back as the position it was made from, for the same feed only")
    func roundTrip() throws {
        let author = UUID()
        for feed in [Feed.latest, .author(author), .comments(parent: author), .nearby(try GeoLocation(latitude: 37.5, longitude: 127), .five)] {
            let cursor = FeedCursor.encode(Self.position, for: feed)
            #expect(try FeedCursor.decode(cursor, for: feed) == Self.position)
            #expect(!cursor.contains("|") && !cursor.contains("="))
        }
        let latest = FeedCursor.encode(Self.position, for: .latest)
        for other in [Feed.popular, .author(author), .nearby(try GeoLocation(latitude: 37.5, longitude: 127), .ten)] {
            #expect(throws: SoomError.self) { try FeedCursor.decode(latest, for: other) }
        }
        #expect(throws: SoomError.self) { try FeedCursor.decode(FeedCursor.encode(Self.position, for: .author(author)), for: .author(UUID())) }
    }

    @Test("popular cursors carry the ranking generation and rank")
    func popular() throws {
        let position = FeedPosition(createdAtMicros: 5, id: UUID(), ranking: .init(generation: 42, rank: 20))
        #expect(try FeedCursor.decode(FeedCursor.encode(position, for: .popular), for: .popular) == position)
        #expect(throws: SoomError.self) { try FeedCursor.decode(FeedCursor.encode(Self.position, for: .popular), for: .popular) }
    }

    @Test("garbage is invalid_cursor", arguments: ["", "abc", "!!!", "djF8bGF0ZXN0", String(repeating: "A", count: 600), "v1|latest|1|x"])
    func garbage(cursor: String) {
        #expect(
            throws: SoomError(
                .invalidRequest, code: "invalid_cursor", message: "The cursor is malformed or belongs to another list.", field: "cursor")
        ) {
            try FeedCursor.decode(cursor, for: .latest)
        }
    }

    @Test("limit: 1…50, default 20")
    func limits() throws {
        #expect(try PageRequest(limit: nil, cursor: nil).limit == 20)
        #expect(try PageRequest(limit: 50, cursor: nil).limit == 50)
        #expect(throws: SoomError.self) { try PageRequest(limit: 0, cursor: nil) }
        #expect(throws: SoomError.self) { try PageRequest(limit: 51, cursor: nil) }
    }
}

@Suite("Card use cases")
struct CardUseCaseTests {
    static let author = Account(id: UUID(), nickname: "글쓴이", profileImage: .builtIn(name: "sea-calm"), bio: "", createdAt: Date())

    @Test("posting stamps whole milliseconds, shows the author, and passes the idempotency key with the canonical request")
    func post() async throws {
        let repository = RecordingCardRepository()
        let now = Date(timeIntervalSince1970: 1_800_000_000.123_789)
        let environment = CardEnvironment(cards: repository, now: { now })
        let draft = try CardRuleTests.draft(tags: ["하늘"])
        let posted = try await PostCard(environment)(by: Self.author, parentID: nil, draft: draft, idempotencyKey: "k-1")
        #expect(abs(posted.card.createdAt.timeIntervalSince1970 - 1_800_000_000.123) < 0.000_001)
        #expect(posted.card.author == UserSummary(id: Self.author.id, nickname: "글쓴이", profileImage: .builtIn(name: "sea-calm")))
        #expect(posted.card.isMine && posted.card.likeCount == 0 && posted.card.tags == ["하늘"])
        let call = try #require(repository.calls.withLock { $0.created.first })
        #expect(call.1 == (try IdempotencyRecord(key: "k-1", request: draft.canonicalForm(parentID: nil))))
    }

    @Test("outcomes become the contract's errors")
    func outcomes() async throws {
        let cases: [(CreateCardOutcome, String)] = [
            (.idempotencyKeyReused, "idempotency_key_reused"), (.backgroundNotOwned, "validation_failed"), (.parentNotFound, "not_found"),
            (.replayedCardGone, "not_found"),
        ]
        for (outcome, code) in cases {
            let environment = CardEnvironment(cards: RecordingCardRepository(createOutcome: { _ in outcome }))
            await #expect {
                try await PostCard(environment)(by: Self.author, parentID: nil, draft: try CardRuleTests.draft(), idempotencyKey: nil)
            } throws: { ($0 as? SoomError)?.code == code }
        }
        let environment = CardEnvironment(cards: RecordingCardRepository())
        await #expect {
            try await PostCard(environment)(by: Self.author, parentID: nil, draft: try CardRuleTests.draft(), idempotencyKey: "")
        } throws: { ($0 as? SoomError)?.field == "Idempotency-Key" }
    }

    @Test("reading a feed decodes the cursor for that feed and encodes the next one; a missing subject is 404")
    func readFeed() async throws {
        let next = FeedPosition(createdAtMicros: 9, id: UUID())
        let repository = RecordingCardRepository(pageResult: FeedPage(cards: [], next: next))
        let result = try await ReadFeed(CardEnvironment(cards: repository))(
            .latest, page: try PageRequest(limit: 7, cursor: FeedCursor.encode(FeedCursorTests.position, for: .latest)), viewer: UUID())
        #expect(try FeedCursor.decode(try #require(result.nextCursor), for: .latest) == next)
        let call = try #require(repository.calls.withLock { $0.pages.first })
        #expect(call.0 == .latest && call.1 == FeedCursorTests.position && call.2 == 7)

        let missing = CardEnvironment(cards: RecordingCardRepository(pageResult: nil))
        await #expect(throws: SoomError.self) {
            try await ReadFeed(missing)(.author(UUID()), page: try PageRequest(limit: nil, cursor: nil), viewer: UUID())
        }
        await #expect(throws: SoomError.self) {
            try await ReadFeed(CardEnvironment(cards: repository))(.popular, page: try PageRequest(limit: nil, cursor: "nope"), viewer: UUID())
        }
    }

    @Test("image formats are recognised by their bytes")
    func imageFormats() {
        #expect(ImageFormat.detect([0xFF, 0xD8, 0xFF, 0xDB]) == .jpeg)
        #expect(ImageFormat.detect([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
        #expect(ImageFormat.detect(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8)) == .webp)
        #expect(ImageFormat.detect(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8)) == nil)
        #expect(ImageFormat.detect(Array("GIF89a".utf8)) == nil)
        #expect(ImageFormat.detect([]) == nil)
        #expect(ImageFormat(contentType: "IMAGE/PNG; q=1") == .png)
        #expect(ImageFormat(contentType: "image/gif") == nil)
    }

    @Test(
        "text is bounded in bytes and marks, and may not reorder what surrounds it",
        arguments: [
            String(repeating: "a" + String(repeating: "\u{301}", count: 5), count: 1),
            String(repeating: "가", count: 500) + "\u{301}\u{301}\u{301}\u{301}\u{301}",
            "abc\u{202E}fdp.exe", "\u{202A}x\u{202C}", "a\u{2067}b", "a\u{2069}b", "a\u{2066}b\nc\u{2069}",
            String(repeating: "👨‍👩‍👧‍👦", count: 300),
        ])
    func hostileText(raw: String) {
        #expect(throws: SoomError.self) { try CardContent(validating: raw) }
        #expect(throws: SoomError.self) { _ = try ProfileText.bio(raw) }
    }

    @Test("content needs something visible: invisible characters alone are refused")
    func invisibleContent() {
        #expect(throws: SoomError.self) { try CardContent(validating: "\u{200B}\u{200B}") }
        #expect(throws: SoomError.self) { try CardContent(validating: "\u{3164}") }
    }

    @Test(
        "balanced isolates, marks (LRM/RLM), four marks and emoji stay allowed",
        arguments: [
            "a\u{2067}שלום\u{2069}b", "x\u{200F}y", "e\u{301}\u{302}\u{303}\u{304}", "👨‍👩‍👧‍👦", "줄\n바꿈",
        ])
    func friendlyText(raw: String) throws {
        #expect(try CardContent(validating: raw).text == raw)
        #expect(try ProfileText.bio(raw) == raw)
    }
}
