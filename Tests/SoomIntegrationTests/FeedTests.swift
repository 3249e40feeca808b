import Foundation
import HummingbirdTesting
import SoomDomain
import Testing

@Suite("Feeds against PostgreSQL")
struct FeedTests {
    @Test("paging through the latest feed while others post never skips or repeats a card")
    func stablePaging() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(3)
            var before: [String] = []
            for index in 0..<10 { before.append(try await client.postCard(tokens[index % 3], "카드 \(index)").id) }
            var seen: [String] = []
            var cursor: String?
            var page = 0
            repeat {
                let uri = "/v1/feeds/latest?limit=3" + (cursor.map { "&cursor=\($0)" } ?? "")
                let object = try await client.send(.get, uri, token: tokens[0]).object
                seen += (object["items"] as? [[String: Any]] ?? []).map(\.id)
                cursor = object["nextCursor"] as? String
                // Others keep posting between pages.
                try await client.postCard(tokens[1], "새 카드 \(page)")
                page += 1
            } while cursor != nil
            #expect(seen == Array(before.reversed()))
        }
    }

    @Test("limits and cursors: 1…50, a malformed or foreign cursor is 400 invalid_cursor")
    func pagingErrors() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(1)
            for _ in 0..<3 { try await client.postCard(tokens[0]) }
            for (query, status, code) in [
                ("limit=0", 422, "validation_failed"), ("limit=51", 422, "validation_failed"), ("limit=abc", 400, "invalid_request"),
                ("limit=1.5", 400, "invalid_request"), ("cursor=garbage", 400, "invalid_cursor"), ("cursor=", 400, "invalid_cursor"),
                ("cursor=" + String(repeating: "A", count: 2000), 400, "invalid_cursor"),
            ] {
                let response = try await client.send(.get, "/v1/feeds/latest?\(query)", token: tokens[0])
                #expect(response.status.code == status, "\(query)")
                #expect(response.errorCode == code, "\(query)")
            }
            let firstPage = try await client.send(.get, "/v1/feeds/latest?limit=1", token: tokens[0]).object
            let cursor = try #require(firstPage["nextCursor"] as? String)
            #expect(try await client.send(.get, "/v1/feeds/latest?limit=50", token: tokens[0]).object["nextCursor"] is NSNull)
            let me = try await client.send(.get, "/v1/me", token: tokens[0]).object.id
            let foreign = try await client.send(.get, "/v1/users/\(me)/cards?cursor=\(cursor)", token: tokens[0])
            #expect(foreign.status == .badRequest && foreign.errorCode == "invalid_cursor")
            #expect(try await client.send(.get, "/v1/feeds/latest?cursor=\(cursor)", token: tokens[0]).status == .ok)
            #expect(try await client.send(.get, "/v1/feeds/latest").status == .unauthorized)
        }
    }

    @Test("every card of a page has likedByMe and isMine for the viewer")
    func viewerFlags() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(2)
            let mine = try await client.postCard(tokens[0], "내 것")
            let theirs = try await client.postCard(tokens[1], "남의 것")
            _ = try await client.send(.put, "/v1/cards/\(theirs.id)/like", token: tokens[0])
            let items = try await client.allPages("/v1/feeds/latest", token: tokens[0])
            let byID = Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) })
            #expect(byID[mine.id]?["isMine"] as? Bool == true && byID[mine.id]?["likedByMe"] as? Bool == false)
            #expect(byID[theirs.id]?["isMine"] as? Bool == false && byID[theirs.id]?["likedByMe"] as? Bool == true)
            #expect(byID[theirs.id]?["likeCount"] as? Int == 1)
        }
    }

    @Test("an account's cards: only its top-level cards; 404 for nobody")
    func authorFeed() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(2)
            let card = try await client.postCard(tokens[0])
            try await client.postCard(tokens[0], parent: card.id)
            try await client.postCard(tokens[1])
            let author = try await client.send(.get, "/v1/me", token: tokens[0]).object.id
            #expect(try await client.allPages("/v1/users/\(author)/cards", token: tokens[1]).map(\.id) == [card.id])
            #expect(try await client.send(.get, "/v1/users/\(UUID())/cards", token: tokens[1]).status == .notFound)
        }
    }

    @Test("my comment cards: only the caller's live ones, at any depth, newest first, paged without a gap")
    func myCommentCards() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(2)
            let theirs = try await client.postCard(tokens[1], "남의 카드")
            let mine = try await client.postCard(tokens[0], "내 카드")
            var answers: [String] = []
            for index in 0..<5 { answers.append(try await client.postCard(tokens[0], "답 \(index)", parent: theirs.id).id) }
            let deeper = try await client.postCard(tokens[0], "답의 답", parent: answers[0]).id
            _ = try await client.postCard(tokens[1], "남의 답", parent: mine.id)
            let story = try await client.postCard(tokens[0], "사라질 답", parent: theirs.id, extra: ["story": true]).id
            try await database.execute("UPDATE cards SET expires_at = now() - interval '1 second' WHERE id = \(UUID(uuidString: story)!)")
            let listed = try await client.allPages("/v1/me/comments", token: tokens[0], limit: 2)
            #expect(listed.map(\.id) == ([deeper] + answers.reversed()))
            #expect(listed.allSatisfy { ($0["parentId"] as? String) != nil && $0["isMine"] as? Bool == true })
            // The parent gone, the answers stay listed, shown with parentDeleted.
            #expect(try await client.send(.delete, "/v1/cards/\(theirs.id)", token: tokens[1]).status == .noContent)
            let after = try await client.allPages("/v1/me/comments", token: tokens[0])
            #expect(after.count == 6 && after.filter { $0["parentDeleted"] as? Bool == true }.count == 5)
            #expect(try await client.allPages("/v1/me/comments", token: tokens[1]).count == 1)
            #expect(try await client.send(.get, "/v1/me/comments").status == .unauthorized)
        }
    }

    @Test("popular: score 5 × likes + 3 × comment cards over seven days, ties newest first")
    func popular() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(4)
            let quiet = try await client.postCard(tokens[0], "조용")
            let liked = try await client.postCard(tokens[0], "좋아요 2")  // 10
            let discussed = try await client.postCard(tokens[0], "댓글 3")  // 9
            let tied = try await client.postCard(tokens[0], "좋아요 2, 나중")  // 10, newer
            let old = try await client.postCard(tokens[0], "오래됨")
            for token in tokens.prefix(2) {
                _ = try await client.send(.put, "/v1/cards/\(liked.id)/like", token: token)
                _ = try await client.send(.put, "/v1/cards/\(tied.id)/like", token: token)
            }
            for token in tokens.prefix(3) { try await client.postCard(token, "답", parent: discussed.id) }
            for token in tokens { _ = try await client.send(.put, "/v1/cards/\(old.id)/like", token: token) }
            try await database.execute("UPDATE cards SET created_at = now() - interval '8 days' WHERE id = \(UUID(uuidString: old.id)!)")
            try await database.withCardRepository { try await $0.refreshPopularRanking(limit: 200, rescan: false) }
            let ranked = try await client.allPages("/v1/feeds/popular", token: tokens[3], limit: 2).map(\.id)
            // `quiet`, which nobody liked or answered, is not popular.
            #expect(ranked == [tied.id, liked.id, discussed.id])
            _ = quiet
        }
    }

    @Test("nearby: distance bands to the cell centres, only cells within the radius, across the antimeridian too")
    func nearby() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            func post(_ name: String, _ latitude: Double, _ longitude: Double) async throws -> String {
                try await client.postCard(token, name, extra: ["location": ["latitude": latitude, "longitude": longitude]]).id
            }
            func band(_ latitude: Double, _ longitude: Double) throws -> Int {
                let cell = GeoCell(containing: try GeoLocation(latitude: latitude, longitude: longitude))
                return DistanceBand.metres(Self.haversine(37.5665, 126.9780, cell.latitude, cell.longitude))
            }
            let cityHall = try await post("시청", 37.5663, 126.9779)
            let gangnam = try await post("강남", 37.4979, 127.0276)
            _ = try await post("부산", 35.1796, 129.0756)
            try await client.postCard(token, "어딘가")
            let east = try await post("날짜변경선 동", 0, 179.99)

            let near = try await client.allPages("/v1/feeds/nearby?latitude=37.5665&longitude=126.9780&radiusKm=5", token: token)
            #expect(near.map(\.id) == [cityHall])
            #expect(near.first?["distanceMeters"] as? Int == (try band(37.5663, 126.9779)))
            let wider = try await client.allPages("/v1/feeds/nearby?latitude=37.5665&longitude=126.9780&radiusKm=10", token: token)
            #expect(wider.map(\.id) == [gangnam, cityHall])
            #expect(wider.first?["distanceMeters"] as? Int == 9000)
            #expect(wider.first?["distanceMeters"] as? Int == (try band(37.4979, 127.0276)))

            let across = try await client.allPages("/v1/feeds/nearby?latitude=0&longitude=-179.99&radiusKm=5", token: token)
            #expect(across.map(\.id) == [east])

            for (query, status) in [
                ("latitude=37&longitude=127&radiusKm=3", 422), ("latitude=37&longitude=127", 400), ("longitude=127&radiusKm=5", 400),
                ("latitude=north&longitude=127&radiusKm=5", 400), ("latitude=91&longitude=127&radiusKm=5", 422),
                ("latitude=37&longitude=127&radiusKm=five", 400),
            ] {
                #expect(try await client.send(.get, "/v1/feeds/nearby?\(query)", token: token).status.code == status, "\(query)")
            }
        }
    }

    static func haversine(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let radians = Double.pi / 180
        let a = pow(sin((lat2 - lat1) * radians / 2), 2) + cos(lat1 * radians) * cos(lat2 * radians) * pow(sin((lon2 - lon1) * radians / 2), 2)
        return 2 * 6_371_008.8 * asin(min(1, sqrt(a)))
    }
}
