import Foundation
import HummingbirdTesting
import SoomApp
import Testing

@Suite("The live notification stream and the notification settings, against PostgreSQL")
struct NotificationStreamTests {
    /// Test apps whose idle streams send a keep-alive every second.
    static let quickKeepAlive: @Sendable (inout AppConfiguration) -> Void = { $0.streamKeepAlive = .seconds(1) }

    @Test("new notifications arrive live with the contract's shape; keep-alives; Last-Event-ID replays what was missed")
    func liveAndReplay() async throws {
        try await withTestApp(adjust: Self.quickKeepAlive) { client, database in
            let tokens = try await database.makeAccounts(3)
            let (author, fan, other) = (tokens[0], tokens[1], tokens[2])
            let card = try await client.postCard(author, "내 카드")
            let stream = try await EventStreamReader.open(client, token: author)
            #expect(stream.status == 200)
            #expect(try await client.send(.put, "/v1/cards/\(card.id)/like", token: fan).status == .ok)
            let started = ContinuousClock.now
            let first = try await stream.waitForEvents(1)
            #expect(ContinuousClock.now - started < .seconds(2))
            try #require(first.count == 1)
            #expect(first[0].type == "notification")
            #expect(first[0].data["type"] as? String == "card_liked" && first[0].data["cardId"] as? String == card.id)
            #expect(first[0].data["actor"] as? String == "null", "a like names nobody")
            #expect(Set(first[0].data.keys) == ["id", "type", "createdAt", "read", "actor", "cardId", "tag", "until"])
            #expect(first[0].id == first[0].data["id"] as? String)
            #expect(stream.retry == 2000)
            // Nothing of anyone else's reaches this stream.
            try await client.postCard(other, "다른 사람 카드")
            #expect(try await client.relate(author, "follow", try await client.accountID(other)).status == .ok)
            try await client.postCard(other, "답", parent: card.id)
            let second = try await stream.waitForEvents(2)
            try #require(second.count == 2)
            #expect(second[1].data["type"] as? String == "card_commented")
            try await Task.sleep(for: .milliseconds(1500))
            #expect(stream.comments.contains("keep-alive"))
            #expect(stream.events.count == 2)

            // Reconnecting after the first replays the second (and only it), then goes on live.
            stream.close()
            try await client.postCard(fan, "또 답", parent: card.id)
            let again = try await EventStreamReader.open(client, token: author, lastEventID: first[0].id)
            let replayed = try await again.waitForEvents(2)
            #expect(replayed.map { $0.data["type"] as? String } == ["card_commented", "card_commented"])
            #expect(replayed.map(\.id) == [second[1].id, try #require(try await client.notifications(author).first)["id"] as? String])
            // Someone else's notification id replays nothing; a malformed one is refused.
            let fanNotification = try #require(try await client.notifications(other).first?["id"] as? String)
            let foreign = try await EventStreamReader.open(client, token: author, lastEventID: fanNotification)
            try await Task.sleep(for: .milliseconds(500))
            // Nothing replayed: only the newest may still arrive live (its NOTIFY can reach this
            // instance after the stream opened, on a busy machine).
            let newest = try #require(try await client.notifications(author).first?["id"] as? String)
            #expect(foreign.status == 200 && foreign.events.allSatisfy { $0.id == newest }, "\(foreign.events.map(\.id))")
            let bad = try await client.send(.get, "/v1/notifications/stream", token: author, headers: [.init("Last-Event-ID")!: "nope"])
            #expect(bad.status == .badRequest && bad.errorField == "Last-Event-ID")
            #expect(try await client.send(.get, "/v1/notifications/stream").status == .unauthorized)
            again.close()
            foreign.close()
        }
    }

    @Test("at most five streams per account: a sixth closes the oldest; sign-out, session expiry and withdrawal close them")
    func streamsEnd() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(4)
            var streams: [EventStreamReader] = []
            for _ in 0..<6 { streams.append(try await EventStreamReader.open(client, token: tokens[0])) }
            #expect(streams.allSatisfy { $0.status == 200 })
            #expect(try await streams[0].waitForEnd())
            #expect(streams[1...].allSatisfy { !$0.ended })
            // Signing out ends the account's streams; the revoked session cannot open another.
            #expect(try await client.send(.delete, "/v1/sessions/current", token: tokens[0]).status == .noContent)
            for stream in streams[1...] { #expect(try await stream.waitForEnd()) }
            #expect(try await client.send(.get, "/v1/notifications/stream", token: tokens[0]).status == .unauthorized)
            // A stream ends when its session expires.
            try await database.execute(
                "UPDATE sessions SET expires_at = now() + interval '2 seconds' WHERE account_id = \(UUID(uuidString: try await client.accountID(tokens[2]))!)"
            )
            try await Task.sleep(for: .milliseconds(300))  // the update's own notice has come and gone
            let expiring = try await EventStreamReader.open(client, token: tokens[2])
            #expect(expiring.status == 200)
            try await Task.sleep(for: .milliseconds(500))
            #expect(!expiring.ended, "open while the session lives")
            #expect(try await expiring.waitForEnd(timeout: .seconds(6)), "the stream outlived its session")
            // Withdrawing ends them too; others' streams go on.
            let mine = try await EventStreamReader.open(client, token: tokens[1])
            let theirs = try await EventStreamReader.open(client, token: tokens[3])
            #expect(try await TestDevice.made(1).withdraw(client, token: tokens[1]).status == .noContent)
            #expect(try await mine.waitForEnd())
            try await Task.sleep(for: .milliseconds(300))
            #expect(!theirs.ended)
            theirs.close()
        }
    }

    @Test("a notification made on one instance reaches a stream open on another")
    func acrossInstances() async throws {
        try await withTwoTestApps(sessionCacheLifetime: 10) { one, two, database in
            let tokens = try await database.makeAccounts(2)
            let card = try await one.postCard(tokens[0], "카드")
            let stream = try await EventStreamReader.open(one, token: tokens[0])
            #expect(try await two.send(.put, "/v1/cards/\(card.id)/like", token: tokens[1]).status == .ok)
            let events = try await stream.waitForEvents(1, timeout: .seconds(2))
            #expect(events.first?.data["type"] as? String == "card_liked")
            stream.close()
        }
    }

    @Test("settings: defaults, a PATCH changes only what it names, refusals, and a muted type is listed but not streamed")
    func settings() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(2)
            let defaults = try await client.send(.get, "/v1/me/notification-settings", token: tokens[0])
            #expect(defaults.status == .ok)
            let expected: [String: Any] = [
                "cardLiked": true, "cardCommented": true, "followed": true, "favoriteTagUsed": true, "followingPosted": true, "pollClosed": true,
            ]
            let object = try defaults.object
            #expect(Set(object.keys) == Set(expected.keys).union(["quietHours"]))
            #expect(object["quietHours"] is NSNull && expected.keys.allSatisfy { object[$0] as? Bool == true })

            let quiet: [String: Any] = ["start": "22:30", "end": "07:00", "timeZone": "Asia/Seoul"]
            let patched = try await client.send(
                .patch, "/v1/me/notification-settings", json: ["cardLiked": false, "quietHours": quiet], token: tokens[0])
            #expect(patched.status == .ok)
            #expect(try patched.object["cardLiked"] as? Bool == false && patched.object["followed"] as? Bool == true)
            #expect(try (patched.object["quietHours"] as? [String: Any])?["start"] as? String == "22:30")
            let second = try await client.send(.patch, "/v1/me/notification-settings", json: ["followed": false], token: tokens[0]).object
            #expect(second["cardLiked"] as? Bool == false && second["followed"] as? Bool == false)
            #expect((second["quietHours"] as? [String: Any])?["timeZone"] as? String == "Asia/Seoul")
            let cleared = try await client.send(.patch, "/v1/me/notification-settings", json: ["quietHours": NSNull()], token: tokens[0]).object
            #expect(cleared["quietHours"] is NSNull && cleared["cardLiked"] as? Bool == false)
            #expect(try await client.send(.get, "/v1/me/notification-settings", token: tokens[1]).object["cardLiked"] as? Bool == true)

            for (body, status, field) in [
                (["quietHours": ["start": "25:00", "end": "07:00", "timeZone": "Asia/Seoul"]], 422, "quietHours"),
                (["quietHours": ["start": "7:00", "end": "08:00", "timeZone": "Asia/Seoul"]], 422, "quietHours"),
                (["quietHours": ["start": "07:00", "end": "07:00", "timeZone": "Asia/Seoul"]], 422, "quietHours"),
                (["quietHours": ["start": "22:00", "end": "07:00", "timeZone": "Mars/Olympus"]], 422, "quietHours"),
                (["quietHours": ["start": "22:00", "end": "07:00"]], 400, "quietHours.timeZone"),
                (["cardLiked": NSNull()], 400, "cardLiked"),
                (["cardLiked": "no"], 400, "cardLiked"),
            ] as [([String: Any], Int, String)] {
                let refused = try await client.send(.patch, "/v1/me/notification-settings", json: body, token: tokens[0])
                #expect(Int(refused.status.code) == status && refused.errorField == field, "\(body): \(String(buffer: refused.body))")
            }
            #expect(try await client.send(.get, "/v1/me/notification-settings", token: tokens[0]).object["followed"] as? Bool == false)

            // Likes are muted: listed, not streamed; a comment card is streamed.
            let card = try await client.postCard(tokens[0], "카드")
            let stream = try await EventStreamReader.open(client, token: tokens[0])
            #expect(try await client.send(.put, "/v1/cards/\(card.id)/like", token: tokens[1]).status == .ok)
            try await client.postCard(tokens[1], "답", parent: card.id)
            let events = try await stream.waitForEvents(1)
            try await Task.sleep(for: .milliseconds(500))
            #expect(stream.events.map { $0.data["type"] as? String } == ["card_commented"] && events.count == 1)
            #expect(try await client.notifications(tokens[0]).map { $0["type"] as? String } == ["card_commented", "card_liked"])
            stream.close()
        }
    }

    @Test("following_posted: each follower hears of a top-level card once per author until read; not of comment cards")
    func followingPosted() async throws {
        try await withTestApp { client, database in
            let tokens = try await database.makeAccounts(4)
            let posterID = try await client.accountID(tokens[0])
            for follower in tokens[1...2] { #expect(try await client.relate(follower, "follow", posterID).status == .ok) }
            let stream = try await EventStreamReader.open(client, token: tokens[1])
            let first = try await client.postCard(tokens[0], "첫 카드")
            let second = try await client.postCard(tokens[0], "둘째 카드")
            try await client.postCard(tokens[0], "답", parent: second.id)
            let events = try await stream.waitForEvents(1)
            #expect(events.first?.data["type"] as? String == "following_posted")
            #expect(events.first?.data["cardId"] as? String == first.id)
            #expect(((events.first?.data["actor"] as? [String: any Sendable])?["id"]) as? String == posterID)
            try await Task.sleep(for: .milliseconds(1500))
            for follower in tokens[1...2] {
                let posted = try await client.notifications(follower).filter { $0["type"] as? String == "following_posted" }
                #expect(posted.count == 1 && posted.first?["cardId"] as? String == first.id)
            }
            #expect(try await client.notifications(tokens[3]).isEmpty)
            #expect(try await client.notifications(tokens[0]).allSatisfy { $0["type"] as? String != "following_posted" })
            // Once read, the next post notifies again.
            #expect(try await client.send(.post, "/v1/notifications/read-all", token: tokens[1]).status == .noContent)
            let third = try await client.postCard(tokens[0], "셋째 카드")
            let more = try await stream.waitForEvents(2)
            #expect(more.last?.data["cardId"] as? String == third.id)
            stream.close()
        }
    }

    @Test("posting queues its author once for the fan-out, whatever the posts and followers; none without followers")
    func followerFanOutIsQueuedOncePerAuthor() async throws {
        try await withTestApp(backgroundJobs: false) { client, database in
            let tokens = try await database.makeAccounts(3)
            let posterID = try await client.accountID(tokens[0])
            for follower in tokens[1...2] { #expect(try await client.relate(follower, "follow", posterID).status == .ok) }
            let first = try await client.postCard(tokens[0], "하나")
            for text in ["둘", "셋"] { try await client.postCard(tokens[0], text) }
            try await client.postCard(tokens[1], "팔로워 없는 사람의 카드")
            #expect(try await database.scalar("SELECT count(*)::int FROM follower_notification_outbox") == 1)
            #expect(
                try await database.scalar("SELECT count(*)::int FROM follower_notification_outbox WHERE card_id = \(UUID(uuidString: first.id)!)")
                    == 1)
            // Taken two seconds after it was queued: not yet …
            _ = try await database.withNotificationRepository { try await $0.deliverNewCardNotifications(limit: 20) }
            #expect(try await database.scalar("SELECT count(*)::int FROM follower_notification_outbox") == 1)
            // … then.
            try await database.execute("UPDATE follower_notification_outbox SET created_at = created_at - interval '3 seconds'")
            _ = try await database.withNotificationRepository { try await $0.deliverNewCardNotifications(limit: 20) }
            #expect(try await database.scalar("SELECT count(*)::int FROM notifications WHERE type = 'following_posted'") == 2)
            #expect(try await database.scalar("SELECT count(*)::int FROM follower_notification_outbox") == 0)
        }
    }
}
