import Foundation
import HummingbirdTesting
import Testing

extension TestClientProtocol {
    /// Posts a card (or a comment card under `parent`) and returns its JSON; the request must succeed.
    @discardableResult
    func postCard(
        _ token: String, _ content: String = "카드", parent: String? = nil, extra: [String: Any] = [:], key: String? = nil
    ) async throws -> [String: Any] {
        var body: [String: Any] = ["content": content, "background": ["default": "sky-dawn"]]
        body.merge(extra) { $1 }
        let path = parent.map { "/v1/cards/\($0)/comments" } ?? "/v1/cards"
        let response = try await self.send(.post, path, json: body, token: token, headers: key.map { [.init("Idempotency-Key")!: $0] } ?? [:])
        try #require(response.status == .created, "posting failed: \(String(buffer: response.body))")
        return try response.object
    }

    /// All pages of a list, following `nextCursor`.
    func allPages(_ path: String, token: String, limit: Int = 3) async throws -> [[String: Any]] {
        var items: [[String: Any]] = []
        var cursor: String?
        var pages = 0
        repeat {
            pages += 1
            try #require(pages <= 500, "\(path): paging does not end")
            let separator = path.contains("?") ? "&" : "?"
            let uri = "\(path)\(separator)limit=\(limit)" + (cursor.map { "&cursor=\($0)" } ?? "")
            let page = try await self.send(.get, uri, token: token)
            try #require(page.status == .ok, "\(uri): \(String(buffer: page.body))")
            let object = try page.object
            items += try #require(object["items"] as? [[String: Any]])
            cursor = object["nextCursor"] as? String
        } while cursor != nil
        return items
    }
}

extension Dictionary where Key == String, Value == Any {
    var id: String { self["id"] as? String ?? "" }
}
