import Foundation
import HTTPTypes
import HummingbirdTesting
import SoomData
import Testing

/// Polls on top-level cards: posted with the card, voted on, exact under concurrency, closed once.
@Suite("Polls against PostgreSQL")
struct PollTests {
    static let twoWeeks: TimeInterval = 14 * 24 * 60 * 60

    struct Summary: Equatable {
        let counts: [Int]
        let voters: Int?
        let mine: [Int]?
    }

    static func time(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)) }

    @Test("a poll is posted with its card, every card has `poll` and `pinned`, and every broken rule is 422 on poll, storing nothing")
    func posting() async throws {
        try await withTestApp { client, database in
            let token = try await database.makeAccounts(1)[0]
            let plain = try await client.postCard(token, "그냥 카드")
            #expect(plain["poll"] is NSNull)
            #expect(plain["pinned"] as? Bool == false)
            let closesAt = Date().addingTimeInterval(3600)
            let card = try await client.postCard(
                token, "점심 뭐 먹지?", extra: ["poll": ["options": [" 김밥 ", "라면", "Pizza"], "multiple": true, "closesAt": Self.time(closesAt)]])
            let poll = try #require(card["poll"] as? [String: Any])
            #expect((poll["options"] as? [[String: Any]])?.map { $0["text"] as? String } == ["김밥", "라면", "Pizza"])
            #expect((poll["options"] as? [[String: Any]])?.map { $0["voteCount"] as? Int } == [0, 0, 0])
            #expect(poll["multiple"] as? Bool == true && poll["voterCount"] as? Int == 0 && poll["closed"] as? Bool == false)
            #expect(poll["myVotes"] as? [Int] == [])
            let shownClose = try #require((poll["closesAt"] as? String).flatMap { Date(rfc3339: $0) })
            #expect(abs(shownClose.timeIntervalSince(closesAt)) < 0.01)
            // The same in the detail and the feed.
            let detail = try await client.send(.get, "/v1/cards/\(card.id)", token: token).object
            #expect((detail["poll"] as? [String: Any])?["multiple"] as? Bool == true)
            let listed = try await client.allPages("/v1/feeds/latest", token: token).first { $0.id == card.id }
            #expect(((listed?["poll"] as? [String: Any])?["options"] as? [[String: Any]])?.count == 3)
            // A story's poll closes with the story.
            let story = try await client.postCard(token, "오늘만", extra: ["story": true, "poll": ["options": ["네", "아니요"]]])
            #expect((story["poll"] as? [String: Any])?["closesAt"] as? String == story["expiresAt"] as? String)

            let cardsBefore = try await database.scalar("SELECT count(*)::int FROM cards")
            let broken: [(String, Any)] = [
                ("one option", ["options": ["하나"]]),
                ("five options", ["options": ["1", "2", "3", "4", "5"]]),
                ("an empty option", ["options": ["가", "  "]]),
                ("a long option", ["options": ["가", String(repeating: "나", count: 31)]]),
                ("duplicates ignoring case", ["options": ["Yes", "yes"]]),
                ("closesAt in the past", ["options": ["가", "나"], "closesAt": Self.time(Date().addingTimeInterval(-60))]),
                ("closesAt too soon", ["options": ["가", "나"], "closesAt": Self.time(Date().addingTimeInterval(60))]),
                ("closesAt beyond 7 days", ["options": ["가", "나"], "closesAt": Self.time(Date().addingTimeInterval(Self.twoWeeks))]),
                ("closesAt not a time", ["options": ["가", "나"], "closesAt": "tomorrow"]),
            ]
            for (name, poll) in broken {
                let response = try await client.send(
                    .post, "/v1/cards", json: ["content": "틀린 투표", "background": ["default": "sky-dawn"], "poll": poll], token: token)
                #expect(response.status == .unprocessableContent && response.errorField == "poll", "\(name): \(String(buffer: response.body))")
            }
            let onComment = try await client.send(
                .post, "/v1/cards/\(card.id)/comments",
                json: ["content": "답", "background": ["default": "sky-dawn"], "poll": ["options": ["가", "나"]]],
                token: token)
            #expect(onComment.status == .unprocessableContent && onComment.errorField == "poll")
            let notJSON = try await client.send(
                .post, "/v1/cards", json: ["content": "틀린 투표", "background": ["default": "sky-dawn"], "poll": ["options": "가"]], token: token)
            #expect(notJSON.status == .badRequest)
            #expect(try await database.scalar("SELECT count(*)::int FROM cards") == cardsBefore)
        }
    }

    @Test("voting: cast, change, withdraw; myVotes in the detail and every list; the author, closed polls and broken ballots refused")
    func voting() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(3)
            let (author, voter, other) = (tokens[0], tokens[1], tokens[2])
            let single = try await client.postCard(author, "고양이? 강아지?", extra: ["poll": ["options": ["고양이", "강아지"]]])
            let several = try await client.postCard(author, "좋아하는 계절", extra: ["poll": ["options": ["봄", "여름", "가을", "겨울"], "multiple": true]])
            let plain = try await client.postCard(author, "투표 없음")
            func vote(_ card: [String: Any], _ options: [Int], as token: String) async throws -> TestResponse {
                try await client.send(.put, "/v1/cards/\(card.id)/poll/vote", json: ["options": options], token: token)
            }
            func counts(_ poll: [String: Any]) -> [Int] { (poll["options"] as? [[String: Any]] ?? []).map { $0["voteCount"] as? Int ?? -1 } }
            /// A vote's answer: the counts, the voters and the caller's ballot.
            func summary(_ response: TestResponse) throws -> Summary {
                let poll = try response.object
                return Summary(counts: counts(poll), voters: poll["voterCount"] as? Int, mine: poll["myVotes"] as? [Int])
            }
            func myVotes(_ card: [String: Any], _ token: String) async throws -> [[Int]?] {
                let detail = try await client.send(.get, "/v1/cards/\(card.id)", token: token).object
                let authorID = try await client.accountID(author)
                var seen = [(detail["poll"] as? [String: Any])?["myVotes"] as? [Int]]
                for path in ["/v1/feeds/latest", "/v1/users/\(authorID)/cards"] {
                    let listed = try await client.allPages(path, token: token).first { $0.id == card.id }
                    seen.append((listed?["poll"] as? [String: Any])?["myVotes"] as? [Int])
                }
                return seen
            }
            // Read first, so that kept cards and marks are in memory.
            #expect(try await myVotes(single, voter) == [[], [], []])

            let cast = try await vote(single, [1], as: voter)
            #expect(cast.status == .ok)
            #expect(try summary(cast) == Summary(counts: [0, 1], voters: 1, mine: [1]))
            let seenVotes = try await myVotes(single, voter)
            #expect(seenVotes == [[1], [1], [1]])
            #expect(try await myVotes(single, other) == [[], [], []])
            let changed = try await vote(single, [0], as: voter)
            #expect(try summary(changed) == Summary(counts: [1, 0], voters: 1, mine: [0]))
            #expect(try await myVotes(single, voter) == [[0], [0], [0]])
            let again = try await vote(single, [0], as: voter)
            #expect(try summary(again) == Summary(counts: [1, 0], voters: 1, mine: [0]), "the same ballot again changes nothing")
            let detail = try await client.send(.get, "/v1/cards/\(single.id)", token: other).object
            #expect(counts(try #require(detail["poll"] as? [String: Any])) == [1, 0])

            // Broken ballots, the author, no poll, no card.
            for (options, name) in [([2], "out of range"), ([0, 1], "two on a single-choice poll"), ([], "none"), ([-1], "negative")] {
                let response = try await vote(single, options, as: other)
                #expect(response.status == .unprocessableContent && response.errorField == "options", "\(name): \(String(buffer: response.body))")
            }
            let duplicate = try await vote(several, [1, 1], as: other)
            #expect(duplicate.status == .unprocessableContent && duplicate.errorField == "options")
            #expect((try await vote(single, [0], as: author)).status == .unprocessableContent)
            #expect((try await vote(plain, [0], as: voter)).status == .notFound)
            #expect((try await client.send(.put, "/v1/cards/\(UUID())/poll/vote", json: ["options": [0]], token: voter)).status == .notFound)
            #expect(
                (try await client.send(.put, "/v1/cards/\(single.id)/poll/vote", raw: "{\"options\": \"0\"}", token: voter)).status == .badRequest)

            // Several choices on a multiple-choice poll.
            let chosen = try await vote(several, [3, 0], as: voter)
            #expect(try summary(chosen) == Summary(counts: [1, 0, 0, 1], voters: 1, mine: [0, 3]))
            _ = try await vote(several, [0, 1, 2, 3], as: other)
            let both = try await vote(several, [1], as: voter)
            #expect(try summary(both) == Summary(counts: [1, 2, 1, 1], voters: 2, mine: [1]))

            // Withdrawn, twice (idempotent).
            let withdrawn = try await client.send(.delete, "/v1/cards/\(single.id)/poll/vote", token: voter)
            #expect(withdrawn.status == .ok)
            #expect(try summary(withdrawn) == Summary(counts: [0, 0], voters: 0, mine: []))
            #expect(try await client.send(.delete, "/v1/cards/\(single.id)/poll/vote", token: voter).status == .ok)
            #expect(try await myVotes(single, voter) == [[], [], []])

            // Closed: both refused with 409, and the card says so.
            _ = try await vote(single, [1], as: voter)
            try await database.execute("UPDATE cards SET poll_closes_at = now() - interval '1 second' WHERE id = \(UUID(uuidString: single.id)!)")
            let late = try await vote(single, [0], as: other)
            #expect(late.status == .conflict && late.errorCode == "poll_closed")
            let lateWithdrawal = try await client.send(.delete, "/v1/cards/\(single.id)/poll/vote", token: voter)
            #expect(lateWithdrawal.status == .conflict && lateWithdrawal.errorCode == "poll_closed")
            let closed = try await client.send(.get, "/v1/cards/\(single.id)", token: voter).object
            #expect((closed["poll"] as? [String: Any])?["closed"] as? Bool == true)
            #expect(counts(try #require(closed["poll"] as? [String: Any])) == [0, 1])

            // A withdrawal takes its ballots back.
            #expect(try await TestDevice.made(2).withdraw(client, token: other).status == .noContent)
            let after = try await client.send(.get, "/v1/cards/\(several.id)", token: voter).object
            let poll = try #require(after["poll"] as? [String: Any])
            #expect(counts(poll) == [0, 1, 0, 0] && poll["voterCount"] as? Int == 1)
        }
    }

    @Test("dozens of voters switching, withdrawing their ballots and their accounts at once: every count is exact")
    func concurrentBallots() async throws {
        try await withTestApp { client, database in
            let voters = 40
            let tokens = try await database.makeAccounts(voters + 1)
            let author = tokens[voters]
            let polls = [
                try await client.postCard(author, "하나만", extra: ["poll": ["options": ["가", "나", "다"]]]).id,
                try await client.postCard(author, "여럿", extra: ["poll": ["options": ["가", "나", "다", "라"], "multiple": true]]).id,
            ]
            let leaving = Set(0..<5)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<voters {
                    group.addTask {
                        var random = SystemRandomNumberGenerator()
                        for round in 0..<12 {
                            if leaving.contains(index), round == 6 {
                                #expect(try await TestDevice.made(index).withdraw(client, token: tokens[index]).status == .noContent)
                                return
                            }
                            let multiple = Bool.random(using: &random)
                            let card = polls[multiple ? 1 : 0]
                            let response: TestResponse
                            if Int.random(in: 0..<4, using: &random) == 0 {
                                response = try await client.send(.delete, "/v1/cards/\(card)/poll/vote", token: tokens[index])
                            } else {
                                let options =
                                    multiple
                                    ? Array((0..<4).filter { _ in Bool.random(using: &random) }.prefix(4)) : [Int.random(in: 0..<3, using: &random)]
                                response = try await client.send(
                                    .put, "/v1/cards/\(card)/poll/vote", json: ["options": options.isEmpty ? [2] : options], token: tokens[index])
                            }
                            #expect(response.status == .ok, "\(String(buffer: response.body))")
                        }
                    }
                }
                try await group.waitForAll()
            }
            for card in polls {
                let id = UUID(uuidString: card)!
                let drift = try await database.scalar(
                    """
                    SELECT (abs(c.poll_voters - (SELECT count(*) FROM poll_ballots b WHERE b.card_id = c.id))
                          + (SELECT sum(abs(u.v - (SELECT count(*) FROM poll_ballots b WHERE b.card_id = c.id AND b.choices & (1 << (u.i - 1)::int) <> 0)))
                             FROM unnest(c.poll_votes) WITH ORDINALITY AS u (v, i)))::int
                    FROM cards c WHERE c.id = \(id)
                    """)
                #expect(drift == 0, "poll \(card) counts drifted by \(drift)")
                let voted = try await database.scalar("SELECT count(*)::int FROM poll_ballots WHERE card_id = \(id)")
                let detail = try await client.send(.get, "/v1/cards/\(card)", token: author).object
                #expect((detail["poll"] as? [String: Any])?["voterCount"] as? Int == voted)
            }
            #expect(try await database.scalar("SELECT count(*)::int FROM poll_ballots b JOIN accounts a ON a.id = b.account_id") > 0)
        }
    }

    @Test("a due poll is closed once, with one poll_closed to each voter and the author, even with two instances closing at once")
    func closing() async throws {
        try await withTestApp(backgroundJobs: false) { client, database in
            let tokens = try await database.makeAccounts(4)
            let author = tokens[0]
            let card = try await client.postCard(author, "마감", extra: ["poll": ["options": ["가", "나"]]])
            let story = try await client.postCard(author, "이야기 투표", extra: ["story": true, "poll": ["options": ["가", "나"]]])
            for token in tokens[1...] {
                #expect(try await client.send(.put, "/v1/cards/\(card.id)/poll/vote", json: ["options": [0]], token: token).status == .ok)
            }
            #expect(try await client.send(.put, "/v1/cards/\(story.id)/poll/vote", json: ["options": [1]], token: tokens[1]).status == .ok)
            let (cardID, storyID) = (UUID(uuidString: card.id)!, UUID(uuidString: story.id)!)
            try await database.execute("UPDATE cards SET poll_closes_at = now() - interval '1 second' WHERE id = \(cardID)")
            try await database.execute(
                "UPDATE cards SET expires_at = now() - interval '1 second', poll_closes_at = now() - interval '1 second' WHERE id = \(storyID)")
            // The story waits for its poll to be told before it goes.
            #expect(try await database.withCardRepository { try await $0.sweepExpiredStories(limit: 100) } == 0)

            let closed = try await withThrowingTaskGroup(of: [UUID].self) { group in
                for _ in 0..<4 { group.addTask { try await database.withCardRepository { try await $0.closeDuePolls(limit: 100) } } }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(closed.sorted { $0.uuidString < $1.uuidString } == [cardID, storyID].sorted { $0.uuidString < $1.uuidString })
            #expect(try await database.withCardRepository { try await $0.closeDuePolls(limit: 100) } == [])
            #expect(try await database.scalar("SELECT count(*)::int FROM notifications WHERE type = 'poll_closed' AND card_id = \(cardID)") == 4)
            #expect(try await database.scalar("SELECT count(*)::int FROM notifications WHERE type = 'poll_closed' AND card_id IS NULL") == 2)
            #expect(try await database.withCardRepository { try await $0.sweepExpiredStories(limit: 100) } == 1)

            let listed = try await client.send(.get, "/v1/notifications", token: tokens[1]).object["items"] as? [[String: Any]] ?? []
            let pollClosed = listed.filter { $0["type"] as? String == "poll_closed" }
            #expect(pollClosed.count == 2)
            #expect(Set(pollClosed.map { $0["cardId"] as? String ?? "none" }) == [card.id, "none"])
            #expect(pollClosed.allSatisfy { $0["actor"] is NSNull })
            let unread = try await client.send(.get, "/v1/notifications/unread-count", token: tokens[1]).object
            #expect((unread["byType"] as? [String: Int])?["poll_closed"] == 2)
        }
    }

    @Test("the closing job runs in the app: a poll at its time tells its voter within seconds")
    func closingJob() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(2)
            let card = try await client.postCard(tokens[0], "곧 마감", extra: ["poll": ["options": ["가", "나"]]])
            #expect(try await client.send(.put, "/v1/cards/\(card.id)/poll/vote", json: ["options": [1]], token: tokens[1]).status == .ok)
            try await database.execute("UPDATE cards SET poll_closes_at = now() WHERE id = \(UUID(uuidString: card.id)!)")
            try await eventually("the job tells the voter", timeout: .seconds(20)) {
                let items = try await client.send(.get, "/v1/notifications", token: tokens[1]).object["items"] as? [[String: Any]] ?? []
                return items.contains { $0["type"] as? String == "poll_closed" && $0["cardId"] as? String == card.id }
            }
        }
    }

    @Test("a ballot cast through another instance shows as myVotes on this one within moments")
    func otherInstance() async throws {
        try await withTwoTestApps(sessionCacheLifetime: 10, feedCacheLifetime: 0.5) { one, two, database in
            let tokens = try await database.makeAccounts(2)
            let card = try await one.postCard(tokens[1], "두 서버 투표", extra: ["poll": ["options": ["가", "나"]]])
            func latest(_ client: some TestClientProtocol) async throws -> [Int]? {
                let listed = try await client.allPages("/v1/feeds/latest", token: tokens[0]).first { $0.id == card.id }
                return (listed?["poll"] as? [String: Any])?["myVotes"] as? [Int]
            }
            #expect(try await latest(one) == [])
            #expect(try await two.send(.put, "/v1/cards/\(card.id)/poll/vote", json: ["options": [1]], token: tokens[0]).status == .ok)
            try await eventually("the ballot reaches the other instance's marks", timeout: .seconds(2)) { try await latest(one) == [1] }
        }
    }
}
