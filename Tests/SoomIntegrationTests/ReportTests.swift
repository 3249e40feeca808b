import Foundation
import HummingbirdTesting
import SoomDomain
import Testing

/// The *Safety* section's reports, hiding and posting restrictions, against PostgreSQL.
@Suite("Reports, hidden cards and restrictions against PostgreSQL")
struct ReportTests {
    @Test("a report is 202 once per account; twice 409, own card 422, bad reason 422, no body 400, unknown 404 — and refusals change nothing")
    func reportRules() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(3)
            let card = try await client.postCard(tokens[0], "신고될 카드")
            let first = try await client.report(tokens[1], card.id, reason: "privacy")
            #expect(first.status == .accepted && first.body.readableBytes == 0)

            let twice = try await client.report(tokens[1], card.id, reason: "abuse")
            #expect(twice.status == .conflict && twice.errorCode == "already_reported")
            let own = try await client.report(tokens[0], card.id)
            #expect(own.status == .unprocessableContent && own.errorCode == "validation_failed")
            let reason = try await client.report(tokens[2], card.id, reason: "spam")
            #expect(reason.status == .unprocessableContent && reason.errorField == "reason")
            let empty = try await client.send(.post, "/v1/cards/\(card.id)/reports", raw: "{}", token: tokens[2])
            #expect(empty.status == .badRequest && empty.errorCode == "invalid_request")
            let wrongType = try await client.send(.post, "/v1/cards/\(card.id)/reports", json: ["reason": 7], token: tokens[2])
            #expect(wrongType.status == .badRequest)
            #expect(try await client.report(tokens[2], UUID().uuidString).status == .notFound)
            #expect(try await client.report(tokens[2], "not-a-card").status == .notFound)
            #expect(try await client.send(.post, "/v1/cards/\(card.id)/reports", json: ["reason": "abuse"]).status == .unauthorized)
            #expect(try await database.scalar("SELECT count(*)::int FROM reports") == 1)
            #expect(try await database.rows("SELECT reason FROM reports")[0].decode(String.self) == "privacy")

            // Across a block either way the card does not exist for the reporter.
            #expect(try await client.relate(tokens[2], "block", try await client.accountID(tokens[0])).status == .ok)
            #expect(try await client.report(tokens[2], card.id).status == .notFound)
            #expect(try await database.scalar("SELECT count(*)::int FROM reports") == 1)
        }
    }

    @Test("a reported card disappears from the reporter's own lists (cached pages included) and its detail is 404 for them; others still see it")
    func reportedCardLeavesTheReportersLists() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(3)
            let (author, reporter, other) = (tokens[0], tokens[1], tokens[2])
            let authorID = try await client.accountID(author)
            let parent = try await client.postCard(author, "부모 카드", extra: ["tags": ["신고태그"]])
            let card = try await client.postCard(author, "신고될 카드", extra: ["tags": ["신고태그"]])
            let comment = try await client.postCard(author, "신고될 댓글", parent: parent.id, extra: ["tags": ["신고태그"]])
            let lists = ["/v1/feeds/latest", "/v1/tags/신고태그/cards", "/v1/users/\(authorID)/cards", "/v1/cards/\(parent.id)/comments"]
            func ids(_ path: String, _ token: String) async throws -> Set<String> {
                Set(try await client.allPages(path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!, token: token).map(\.id))
            }
            // The reporter has read every list before (the shared page cache holds them).
            for path in lists { #expect(try await !ids(path, reporter).isDisjoint(with: [card.id, comment.id]), "\(path)") }

            #expect(try await client.report(reporter, card.id).status == .accepted)
            #expect(try await client.report(reporter, comment.id).status == .accepted)
            for path in lists {
                #expect(try await ids(path, reporter).isDisjoint(with: [card.id, comment.id]), "\(path) still shows a reported card to its reporter")
                #expect(
                    try await !ids(path, other).isDisjoint(with: [card.id, comment.id]), "\(path) hides a card from someone who did not report it")
            }
            #expect(try await ids("/v1/feeds/latest", reporter).contains(parent.id))
            for id in [card.id, comment.id] {
                #expect(try await client.send(.get, "/v1/cards/\(id)", token: reporter).status == .notFound)
                #expect(try await client.send(.get, "/v1/cards/\(id)", token: other).status == .ok)
                #expect(try await client.send(.get, "/v1/cards/\(id)", token: author).status == .ok)
                // Reporting it again is still the contract's 409, not a 404.
                #expect(try await client.report(reporter, id).errorCode == "already_reported")
            }
        }
    }

    @Test("reports from accounts younger than the reporter minimum age are recorded but never hide a card, even once those accounts age")
    func youngReportersDoNotHide() async throws {
        try await withTestApp(moderation: .default) { client, database in
            let tokens = try await database.makeAccounts(9)
            let card = try await client.postCard(tokens[0], "지켜질 카드")
            for token in tokens[1...4] { #expect(try await client.report(token, card.id).status == .accepted) }
            #expect(try await database.scalar("SELECT count(*)::int FROM reports") == 4)
            #expect(try await database.scalar("SELECT count(*)::int FROM cards WHERE hidden_at IS NOT NULL") == 0)
            #expect(try await client.send(.get, "/v1/cards/\(card.id)", token: tokens[5]).status == .ok)

            // Two days pass: every account is two days old, and the four early reports, made when
            // their accounts were seconds old, still do not count.
            try await database.execute("UPDATE accounts SET created_at = created_at - interval '2 days'")
            try await database.execute("UPDATE reports SET created_at = created_at - interval '2 days'")
            for token in tokens[5...7] { #expect(try await client.report(token, card.id).status == .accepted) }
            #expect(try await database.scalar("SELECT count(*)::int FROM cards WHERE hidden_at IS NOT NULL") == 0)
            #expect(try await client.report(tokens[8], card.id).status == .accepted)
            #expect(try await database.scalar("SELECT count(*)::int FROM cards WHERE hidden_at IS NOT NULL") == 1)
        }
    }

    @Test("the fourth of many parallel reporters hides the card once and restricts its author once, everywhere at once")
    func parallelReportsHideOnce() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(13)
            let author = tokens[0]
            let parent = try await client.postCard(tokens[1], "부모 카드")
            let card = try await client.postCard(author, "문제의 카드", extra: ["tags": ["신고", "숨김"]])
            let answer = try await client.postCard(author, "문제의 답", parent: parent.id, extra: ["tags": ["신고"]])
            let keep = try await client.postCard(author, "멀쩡한 카드", extra: ["tags": ["멀쩡"]])
            let authorID = try await client.accountID(author)
            #expect(try await client.send(.get, "/v1/users/\(authorID)", token: tokens[1]).object["cardCount"] as? Int == 2)

            // Twelve reporters at once, on two cards: per card exactly four are taken, the rest find it gone.
            let statuses = try await withThrowingTaskGroup(of: (String, Int).self) { group in
                for (index, token) in tokens.dropFirst().enumerated() {
                    let target = index.isMultiple(of: 2) ? card.id : answer.id
                    group.addTask { (target, Int(try await client.report(token, target, reason: "abuse").status.code)) }
                }
                return try await group.reduce(into: [(String, Int)]()) { $0.append($1) }
            }
            for target in [card.id, answer.id] {
                let mine = statuses.filter { $0.0 == target }.map(\.1)
                #expect(mine.filter { $0 == 202 }.count == 4 && mine.filter { $0 == 404 }.count == 2, "\(target): \(mine)")
            }
            #expect(try await database.scalar("SELECT count(*)::int FROM cards WHERE hidden_at IS NOT NULL") == 2)
            // The second card was hidden while its author was restricted already: one step, not two.
            #expect(try await database.scalar("SELECT restriction_count FROM accounts WHERE id = \(UUID(uuidString: authorID)!)") == 1)

            // Gone for everyone else: detail, feeds, the parent's comment cards and count, tag usage.
            let reader = tokens[1]
            #expect(try await client.send(.get, "/v1/cards/\(card.id)", token: reader).status == .notFound)
            #expect(try await client.send(.get, "/v1/cards/\(answer.id)", token: reader).status == .notFound)
            #expect(try await client.allPages("/v1/feeds/latest", token: reader).map(\.id).contains(card.id) == false)
            #expect(try await client.allPages("/v1/users/\(authorID)/cards", token: reader).map(\.id) == [keep.id])
            #expect(try await client.allPages("/v1/cards/\(parent.id)/comments", token: reader).isEmpty)
            #expect(try await client.send(.get, "/v1/cards/\(parent.id)", token: reader).object["commentCount"] as? Int == 0)
            #expect(try await client.allPages("/v1/tags/신고/cards", token: reader).isEmpty)
            #expect(try await client.send(.get, "/v1/tags/신고").object["usageCount"] as? Int == 0)
            #expect(try await client.send(.get, "/v1/tags/search?q=숨").object["items"] as? [Any] != nil)
            #expect(try await (client.send(.get, "/v1/tags/search?q=숨").object["items"] as? [Any])?.isEmpty == true)
            #expect(try await client.send(.get, "/v1/users/\(authorID)", token: reader).object["cardCount"] as? Int == 1)
            #expect(try await client.send(.put, "/v1/cards/\(card.id)/like", token: reader).status == .notFound)
            #expect(
                try await client.send(
                    .post, "/v1/cards/\(card.id)/comments", json: ["content": "답", "background": ["default": "sky-dawn"]],
                    token: reader
                ).status == .notFound)
            #expect(try await database.tagDrift() == (0, 0))
            #expect(try await database.cardCountDrift() == 0)

            // The author still sees it, is told, and is restricted from posting (not from reading).
            #expect(try await client.send(.get, "/v1/cards/\(card.id)", token: author).status == .ok)
            let notifications = try await client.notifications(author)
            #expect(
                notifications.filter { $0["type"] as? String == "card_hidden" }.compactMap { $0["cardId"] as? String }.sorted()
                    == [card.id, answer.id].sorted())
            let restricted = notifications.filter { $0["type"] as? String == "posting_restricted" }
            #expect(restricted.count == 1 && restricted.allSatisfy { $0["until"] is String && $0["actor"] is NSNull })
            let me = try await client.send(.get, "/v1/me", token: author).object
            let until = try #require(me["restrictedUntil"] as? String)
            let untilDate = try Date(until, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            // One restriction of 1 day: the second hide came while it was running.
            #expect(abs(untilDate.timeIntervalSinceNow - 86_400) < 120)
            let post = try await client.send(.post, "/v1/cards", json: ["content": "또", "background": ["default": "sky-dawn"]], token: author)
            #expect(post.status.code == 423 && post.errorCode == "account_restricted")
            #expect(try (post.object["error"] as? [String: Any])?["restrictedUntil"] as? String == until)
            let comment = try await client.send(
                .post, "/v1/cards/\(parent.id)/comments", json: ["content": "또", "background": ["default": "sky-dawn"]], token: author)
            #expect(comment.status.code == 423)
            #expect(try await client.send(.get, "/v1/feeds/latest", token: author).status == .ok)
            #expect(try await client.send(.put, "/v1/cards/\(parent.id)/like", token: author).status == .ok)
        }
    }

    @Test("restrictions escalate 1, 7, 14, 30, 30 days; one running is never shortened; and it ends by itself")
    func escalation() async throws {
        let policy = try ModerationPolicy(reportThreshold: 1, restrictionDays: [1, 7, 14, 30], reporterMinimumAge: 0)
        try await withTestApp(moderation: policy) { client, database in
            let tokens = try await database.makeAccounts(8)
            let author = tokens[0]
            let authorID = UUID(uuidString: try await client.accountID(author))!
            var lengths: [Int] = []
            for round in 0..<5 {
                // A new reporter each time: one who hid this author's cards before weighs less (report rings).
                let reporter = tokens[1 + round]
                // The previous restriction has run out (moved into the past), so the author can post again.
                try await database.execute("UPDATE accounts SET restricted_until = now() - interval '1 second' WHERE id = \(authorID)")
                let card = try await client.postCard(author, "카드 \(round)")
                #expect(try await client.report(reporter, card.id).status == .accepted)
                lengths.append(
                    try await database.scalar(
                        "SELECT round(extract(epoch FROM restricted_until - now()) / 86400)::int FROM accounts WHERE id = \(authorID)"))
            }
            #expect(lengths == [1, 7, 14, 30, 30])

            // A shorter restriction never replaces a longer one still running.
            try await database.execute("UPDATE accounts SET restriction_count = 0 WHERE id = \(authorID)")
            try await database.execute("UPDATE accounts SET restricted_until = now() - interval '1 second' WHERE id = \(authorID)")
            let card = try await client.postCard(author, "마지막")
            try await database.execute("UPDATE accounts SET restricted_until = now() + interval '20 days' WHERE id = \(authorID)")
            #expect(try await client.report(tokens[6], card.id).status == .accepted)
            #expect(
                try await database.scalar(
                    "SELECT round(extract(epoch FROM restricted_until - now()) / 86400)::int FROM accounts WHERE id = \(authorID)") == 20)

            // Once the time has passed, posting works and /v1/me shows no restriction.
            try await database.execute("UPDATE accounts SET restricted_until = now() - interval '1 second' WHERE id = \(authorID)")
            try await client.postCard(author, "다시")
            #expect(try await client.send(.get, "/v1/me", token: author).object["restrictedUntil"] is NSNull)
        }
    }

    @Test("a hidden card is counted down once: not again by its deletion, its story's expiry, or its author's withdrawal")
    func hiddenCountsOnce() async throws {
        let policy = try ModerationPolicy(reportThreshold: 1, restrictionDays: [1], reporterMinimumAge: 0)
        try await withTestApp(moderation: policy) { client, database in
            let tokens = try await database.makeAccounts(6)
            let (author, other) = (tokens[0], tokens[2])
            let parent = try await client.postCard(other, "부모", extra: ["tags": ["부모"]])
            let deleted = try await client.postCard(author, "지울 답", parent: parent.id, extra: ["tags": ["답"]])
            let story = try await client.postCard(author, "이야기 답", parent: parent.id, extra: ["tags": ["답"], "story": true])
            let withdrawn = try await client.postCard(author, "탈퇴 답", parent: parent.id, extra: ["tags": ["답"]])
            let top = try await client.postCard(author, "위", extra: ["tags": ["답"]])
            // A reporter each: one who hid this author's cards before weighs less (report rings).
            for (card, reporter) in zip([deleted, story, withdrawn, top], [tokens[1], tokens[3], tokens[4], tokens[5]]) {
                #expect(try await client.report(reporter, card.id).status == .accepted)
            }
            #expect(try await client.send(.get, "/v1/cards/\(parent.id)", token: other).object["commentCount"] as? Int == 0)
            #expect(try await database.cardCountDrift() == 0)
            #expect(try await database.storedUsage("답") == 0)

            // The author may still delete a hidden card; nothing is counted down twice.
            #expect(try await client.send(.delete, "/v1/cards/\(deleted.id)", token: author).status == .noContent)
            try await database.execute("UPDATE cards SET expires_at = now() - interval '1 second' WHERE id = \(UUID(uuidString: story.id)!)")
            #expect(try await database.withCardRepository { try await $0.sweepExpiredStories(limit: 100) } == 1)
            #expect(try await database.cardCountDrift() == 0)
            #expect(try await TestDevice.made(0).withdraw(client, token: author).status == .noContent)
            #expect(try await client.send(.get, "/v1/cards/\(parent.id)", token: other).object["commentCount"] as? Int == 0)
            #expect(try await database.cardCountDrift() == 0)
            #expect(try await database.tagDrift() == (0, 0))
            #expect(try await database.scalar("SELECT count(*)::int FROM reports") == 0)
        }
    }
}
