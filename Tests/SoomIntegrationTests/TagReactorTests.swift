import Foundation
import Hummingbird
import SoomDomain
import Testing

@testable import SoomHTTP

/// The tag reactors' reducers and responses: pure, no database.
@Suite("Tag reducers")
struct TagReactorTests {
    static let items = [TagUsage(name: "하늘", usageCount: 3), TagUsage(name: "Sky", usageCount: 1)]

    @Test("TagReactor: a list or one tag becomes the state; the JSON is exactly the contract's")
    func tagReactor() throws {
        #expect(TagReactor.reduce(state: .list([]), mutation: .listed(Self.items)) == .list(Self.items))
        let detail = TagDetail(name: "하늘", usageCount: 0, isFavorite: true)
        #expect(TagReactor.reduce(state: .list([]), mutation: .loaded(detail)) == .tag(detail))
        let list = try TagReactor.State.list(Self.items).response()
        #expect(list.status == .ok)
        #expect(list.headers[.contentType] == "application/json; charset=utf-8")
    }

    @Test("FavoriteTagReactor: the favourite flag or the list becomes the state")
    func favoriteReactor() throws {
        #expect(FavoriteTagReactor.reduce(state: .error(.internalError), mutation: .favoriteSet(true)) == .favorite(true))
        #expect(FavoriteTagReactor.reduce(state: .favorite(true), mutation: .favoriteSet(false)) == .favorite(false))
        #expect(FavoriteTagReactor.reduce(state: .list([]), mutation: .listed(Self.items)) == .list(Self.items))
        var writer = JSONWriter()
        TagListBody(items: Self.items.map(TagUsageBody.init)).write(to: &writer)
        let body = Data(writer.bytes)
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(object.keys.sorted() == ["items"])
        let first = try #require((object["items"] as? [[String: Any]])?.first)
        #expect(first["name"] as? String == "하늘" && first["usageCount"] as? Int == 3 && first.count == 2)
        let detail = try JSONSerialization.jsonObject(
            with: try JSON.encoder.encode(TagDetailBody(TagDetail(name: "a", usageCount: 0, isFavorite: false))))
        #expect((detail as? [String: Any])?.keys.sorted() == ["isFavorite", "name", "usageCount"])
    }
}
