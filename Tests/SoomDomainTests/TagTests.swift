import Foundation
import SoomDomain
import Synchronization
import Testing

@Suite("Tags: normalisation, search queries, the ranking cache and the use cases")
struct TagTests {
    @Test("normalisation: trimmed, NFC, one leading # removed; Hangul is first-class")
    func normalisation() throws {
        let spellings = ["#하늘", "하늘", " 하늘 ", "\u{3000}#하늘\n", "\u{1112}\u{1161}\u{1102}\u{1173}\u{11AF}"]  // the last: NFD jamo
        let keys = try spellings.map { try Tag(normalising: $0).key }
        #expect(Set(keys) == ["하늘"])
        #expect(try Tag(normalising: "#Café").name == "Caf\u{E9}")
        #expect(try Tag(normalising: "Cafe\u{301}").key == "caf\u{E9}")
        #expect(try Tag(normalising: "Seoul_2026").key == "seoul_2026")
        #expect(try Tag(normalising: "ㅋㅋㅋ").name == "ㅋㅋㅋ")
        #expect(try Tag(normalising: "東京").key == "東京")
        #expect(try Tag(normalising: String(repeating: "가", count: 15)).name.count == 15)
    }

    @Test("invalid tags: empty, too long, spaces, punctuation, emoji, two #")
    func invalid() {
        for bad in ["", " ", "#", "##하늘", "하 늘", "a-b", "a.b", "🌊", "#" + String(repeating: "a", count: 16), "a\u{2028}b", "하늘!"] {
            #expect(throws: SoomError.self, "\(bad)") { try Tag(normalising: bad) }
        }
    }

    @Test("a card's tags: duplicates ignoring case collapse to the first spelling, at most ten")
    func cardTags() throws {
        #expect(try Tag.normalise(["Sky", "#sky", "SKY", "하늘", "#하늘"]).map(\.name) == ["Sky", "하늘"])
        #expect(throws: SoomError.self) { try Tag.normalise((0..<11).map { "t\($0)" }) }
        #expect(try Tag.normalise((0..<10).map { "t\($0)" } + ["T0"]).count == 10)
    }

    @Test("search query: q normalised and case-folded, must be a valid tag; limit 1–20, default 10")
    func searchQuery() throws {
        #expect(try TagSearch(q: "#Se", limit: nil) == TagSearch(q: "se", limit: 10))
        #expect(try TagSearch(q: " 하 ", limit: 20).prefix == "하")
        for (q, limit, field) in [("", nil, "q"), ("#", nil, "q"), ("a b", nil, "q"), ("a", 0, "limit"), ("a", 21, "limit"), ("🌊", 5, "q")] {
            do {
                _ = try TagSearch(q: q, limit: limit)
                Issue.record("accepted q=\(q) limit=\(String(describing: limit))")
            } catch {
                #expect(error.code == "validation_failed" && error.field == field, "\(q)")
            }
        }
    }

    @Test("the ranking cache serves a read for less than its lifetime, measured from when the read began")
    func rankingCache() {
        let cache = TagRankingCache(lifetime: 0.25)
        let start = Date(timeIntervalSince1970: 1_000)
        let ranking = [TagUsage(name: "a", usageCount: 1)]
        #expect(cache.ranking(at: start) == nil)
        cache.store(ranking, readAt: start)
        cache.store([], readAt: start.addingTimeInterval(-1))  // an older read never replaces a newer one
        #expect(cache.ranking(at: start.addingTimeInterval(0.1)) == ranking)
        #expect(cache.ranking(at: start.addingTimeInterval(0.2)) == ranking)
        #expect(cache.ranking(at: start.addingTimeInterval(0.25)) == nil)
        #expect(TagRankingCache(lifetime: 60).lifetime == 1)
        let off = TagRankingCache(lifetime: 0)
        off.store(ranking, readAt: start)
        #expect(off.ranking(at: start) == nil)
    }

    @Test("RankTags: at most ten, count then name; reads again once the cache lifetime has passed")
    func rankTags() async throws {
        let repository = InMemoryTagRepository()
        for index in 0..<12 { repository.use("tag\(index)", count: index % 4 + 1) }
        repository.use("unused", count: 0)
        let clock = Mutex(Date(timeIntervalSince1970: 1_000))
        let environment = TagEnvironment(tags: repository, rankingCacheLifetime: 0.5, now: { clock.withLock { $0 } })
        let ranked = try await RankTags(environment)()
        #expect(ranked.map(\.name) == ["tag11", "tag3", "tag7", "tag10", "tag2", "tag6", "tag1", "tag5", "tag9", "tag0"])
        repository.use("hot", count: 100)
        #expect(try await RankTags(environment)() == ranked)
        #expect(repository.rankedReads == 1)
        clock.withLock { $0 += 0.5 }
        #expect(try await RankTags(environment)().first == TagUsage(name: "hot", usageCount: 100))
        #expect(repository.rankedReads == 2)
    }

    @Test("ShowTag, FavoriteTag, ListFavoriteTags: any valid name, idempotent favourites, at most nine")
    func favourites() async throws {
        let repository = InMemoryTagRepository()
        repository.use("Sky", count: 3)
        let environment = TagEnvironment(tags: repository)
        let me = UUID()
        #expect(try await ShowTag(environment)("#sky", viewer: nil) == TagDetail(name: "Sky", usageCount: 3, isFavorite: false))
        #expect(try await ShowTag(environment)("바다", viewer: me) == TagDetail(name: "바다", usageCount: 0, isFavorite: false))
        await #expect(throws: SoomError.self) { try await ShowTag(environment)("a b", viewer: me) }
        #expect(try await FavoriteTag(environment)(true, name: "SKY", account: me))
        #expect(try await FavoriteTag(environment)(true, name: "sky", account: me))
        #expect(try await ShowTag(environment)("sky", viewer: me).isFavorite)
        for index in 0..<8 { #expect(try await FavoriteTag(environment)(true, name: "t\(index)", account: me)) }
        await #expect(throws: SoomError.favoriteLimit) { try await FavoriteTag(environment)(true, name: "tenth", account: me) }
        #expect(try await FavoriteTag(environment)(true, name: "t0", account: me))
        #expect(try await ListFavoriteTags(environment)(of: me).first == TagUsage(name: "Sky", usageCount: 3))
        #expect(try await FavoriteTag(environment)(false, name: "sky", account: me) == false)
        #expect(try await FavoriteTag(environment)(false, name: "sky", account: me) == false)
        #expect(try await FavoriteTag(environment)(true, name: "tenth", account: me))
        #expect(try await ListFavoriteTags(environment)(of: me).count == 9)
    }

    @Test("SearchTags: prefix ignoring case, highest count first")
    func search() async throws {
        let repository = InMemoryTagRepository()
        repository.use("Seoul", count: 2)
        repository.use("sea", count: 5)
        repository.use("하늘", count: 1)
        let environment = TagEnvironment(tags: repository)
        #expect(try await SearchTags(environment)(TagSearch(q: "SE", limit: nil)).map(\.name) == ["sea", "Seoul"])
        #expect(try await SearchTags(environment)(TagSearch(q: "#하", limit: 1)).map(\.name) == ["하늘"])
    }

    @Test(
        "invisible characters split no tag: variation selectors, CGJ and Hangul fillers are removed; full width folds",
        arguments: ["cafe\u{034F}", "cafe\u{FE0F}", "cafe\u{3164}", "ＣＡＦＥ", "Cafe", "\u{200B}cafe"])
    func invisibleSplitsNothing(raw: String) throws {
        #expect(try Tag(normalising: raw).key == "cafe", "\(raw.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test(
        "a tag of nothing visible, of stacked marks or of too many bytes is refused",
        arguments: ["\u{3164}", "\u{FE0F}", "#\u{115F}", "x\u{301}\u{302}\u{303}\u{304}\u{305}"])
    func invisibleTags(raw: String) {
        #expect(throws: SoomError.self) { try Tag(normalising: raw) }
    }
}
