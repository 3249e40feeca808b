import AsyncHTTPClient
import Crypto
import Foundation
import HummingbirdTesting
import Logging
import SoomApp
import SoomData
import SoomDomain
import SoomHTTP
import SoomPush
import Testing

@Suite("Push to browsers through a stand-in Web Push service, against PostgreSQL")
struct PushTests {
    /// A test app that may call the stand-in, trusts its CA, sends quickly and retries soon.
    static func configure(_ standIn: PushStandIn, lease: Duration = .seconds(60)) -> @Sendable (inout AppConfiguration) -> Void {
        let (port, caFile) = (standIn.port, standIn.caFile)
        return { configuration in
            configuration.push = PushConfiguration(vapidSubject: "mailto:ops@soom.test", allowedHosts: ["localhost:\(port)"], caFile: caFile)
            configuration.push.deliveryInterval = .milliseconds(100)
            configuration.push.retryBase = 0.5
            configuration.push.sendTimeout = .seconds(1)
            configuration.push.lease = lease
        }
    }

    /// The same, with FCM configured: the stand-in's service account, token endpoint and send endpoint.
    static func configureFCM(_ standIn: PushStandIn) throws -> @Sendable (inout AppConfiguration) -> Void {
        let base = Self.configure(standIn)
        let credentials = try PushConfiguration.fcmCredentials(json: standIn.serviceAccountJSON)
        let origin = standIn.origin
        return { configuration in
            base(&configuration)
            configuration.push.fcm = credentials
            configuration.push.fcmEndpoint = origin
        }
    }

    /// The same, with APNs configured: the stand-in's team key, over HTTP/2.
    static func configureAPNs(_ standIn: PushStandIn) -> @Sendable (inout AppConfiguration) -> Void {
        let base = Self.configure(standIn)
        let credentials = APNsCredentials(
            keyPEM: standIn.apnsKey.pemRepresentation, keyID: PushStandIn.apnsKeyID, teamID: PushStandIn.teamID, topic: PushStandIn.bundleID,
            endpoint: standIn.origin)
        return { configuration in
            base(&configuration)
            configuration.push.apns = credentials
        }
    }

    static func withStandIn(_ body: (PushStandIn) async throws -> Void) async throws {
        let standIn = try await PushStandIn.start()
        do {
            try await body(standIn)
        } catch {
            await standIn.stop()
            throw error
        }
        await standIn.stop()
    }

    @Test("the stand-in's decryptor reads RFC 8291's example (so it checks the server independently)")
    func decryptorReadsTheRFCExample() throws {
        let key = try P256.KeyAgreement.PrivateKey(rawRepresentation: Base64URL.decode("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94")!)
        let body = Base64URL.decode(
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
        )!
        let plain = try WebPushDecryption.decrypt(body, key, auth: Base64URL.decode("BTBZMqHH6r4Tts7J_aSIgg")!)
        #expect(String(decoding: plain, as: UTF8.self) == "When I grow up, I want to be a watermelon")
    }

    @Test("a like on one device arrives, decryptable and VAPID-signed, at the other's push service within seconds")
    func likeIsPushed() async throws {
        try await Self.withStandIn { standIn in
            try await withTestApp(adjust: Self.configure(standIn)) { client, database in
                let tokens = try await database.makeAccounts(2)
                let card = try await client.postCard(tokens[0], "푸시로 알려 줘")
                let browser = standIn.subscribe()
                let subscribed = try await client.send(.post, "/v1/me/push-subscriptions", json: browser.body, token: tokens[0])
                #expect(subscribed.status == .created)
                let shown = String(buffer: subscribed.body)
                #expect(try Set(subscribed.object.keys) == ["id", "kind", "createdAt"] && subscribed.object["kind"] as? String == "webpush")
                #expect(!shown.contains("localhost") && !shown.contains((browser.body["keys"] as! [String: String])["auth"]!))
                let started = ContinuousClock.now
                #expect(try await client.send(.put, "/v1/cards/\(card.id)/like", token: tokens[1]).status == .ok)
                let delivered = try await standIn.waitForDelivered(1, to: browser.id)
                try #require(delivered.count == 1, "nothing arrived: \(standIn.received.map(\.answered))")
                #expect(ContinuousClock.now - started < .seconds(5))
                let push = delivered[0]
                let listed = try #require(try await client.notifications(tokens[0]).first)
                #expect(push.payload?["id"] as? String == listed["id"] as? String)
                #expect(push.payload?["type"] as? String == "card_liked" && push.payload?["cardId"] as? String == card.id)
                #expect(push.payload?["actor"] as? String == "null", "a like names nobody, in a push too")
                #expect(push.vapidValid && push.audience == standIn.origin)
                #expect(push.ttl == "86400" && push.urgency == "normal" && push.contentEncoding == "aes128gcm")
                #expect(push.topic == (listed["id"] as? String)?.replacingOccurrences(of: "-", with: ""))
                // Sent: nothing left in the queue.
                #expect(try await database.scalar("SELECT count(*)::int FROM push_deliveries") == 0)
                // The same endpoint again is the same subscription (200), with nothing echoed.
                let again = try await client.send(.post, "/v1/me/push-subscriptions", json: browser.body, token: tokens[0])
                let (againID, firstID) = (try again.object["id"] as? String, try subscribed.object["id"] as? String)
                #expect(again.status == .ok && againID == firstID)
                let key = try await client.send(.get, "/v1/push/vapid-public-key")
                #expect(key.status == .ok)
                let publicKey = try #require(try key.object["publicKey"] as? String)
                #expect(Base64URL.decode(publicKey)?.count == 65 && Base64URL.decode(publicKey)?.first == 4)
            }
        }
    }

    @Test("subscriptions: refused endpoints and kinds are 422 and store nothing; five at most; list and delete")
    func subscriptions() async throws {
        try await Self.withStandIn { standIn in
            try await withTestApp(adjust: Self.configure(standIn)) { client, database in
                let tokens = try await database.makeAccounts(2)
                let keys = standIn.subscribe().body["keys"]!
                for (body, field) in [
                    (["kind": "webpush", "endpoint": "http://localhost:\(standIn.port)/push/x", "keys": keys], "endpoint"),
                    (["kind": "webpush", "endpoint": "https://evil.test/push/x", "keys": keys], "endpoint"),
                    (["kind": "webpush", "endpoint": "https://127.0.0.1:\(standIn.port)/push/x", "keys": keys], "endpoint"),
                    (["kind": "webpush", "endpoint": "https://169.254.169.254/latest/meta-data/", "keys": keys], "endpoint"),
                    (["kind": "webpush", "endpoint": "https://localhost:\(standIn.port)@evil.test/x", "keys": keys], "endpoint"),
                    (
                        ["kind": "webpush", "endpoint": "https://localhost:\(standIn.port)/x", "keys": ["p256dh": "AAAA", "auth": "AAAA"]],
                        "keys.p256dh"
                    ),
                    (["kind": "fcm", "token": "abc"], "kind"),
                    (["kind": "apns", "token": String(repeating: "a", count: 64)], "kind"),
                    (["kind": "carrier-pigeon"], "kind"),
                ] as [([String: Any], String)] {
                    let refused = try await client.send(.post, "/v1/me/push-subscriptions", json: body, token: tokens[0])
                    #expect(refused.status == .unprocessableContent && refused.errorField == field, "\(body): \(String(buffer: refused.body))")
                }
                let missing = try await client.send(.post, "/v1/me/push-subscriptions", json: ["kind": "webpush"], token: tokens[0])
                #expect(missing.status == .badRequest)
                #expect(try await database.scalar("SELECT count(*)::int FROM push_subscriptions") == 0)

                var ids: [String] = []
                for _ in 0..<5 {
                    let made = try await client.send(.post, "/v1/me/push-subscriptions", json: standIn.subscribe().body, token: tokens[0])
                    #expect(made.status == .created)
                    ids.append(try made.object.id)
                }
                let sixth = try await client.send(.post, "/v1/me/push-subscriptions", json: standIn.subscribe().body, token: tokens[0])
                #expect(sixth.status == .unprocessableContent && sixth.errorCode == "push_subscription_limit")
                let list = try await client.send(.get, "/v1/me/push-subscriptions", token: tokens[0]).object
                #expect((list["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ids)
                #expect(try await client.send(.delete, "/v1/me/push-subscriptions/\(ids[0])", token: tokens[1]).status == .notFound)
                #expect(try await client.send(.delete, "/v1/me/push-subscriptions/\(ids[0])", token: tokens[0]).status == .noContent)
                #expect(try await client.send(.delete, "/v1/me/push-subscriptions/\(ids[0])", token: tokens[0]).status == .notFound)
                #expect(try await client.send(.get, "/v1/me/push-subscriptions").status == .unauthorized)
            }
        }
    }

    @Test("410 deletes the subscription; 429 with Retry-After and 503 and a timeout are retried until delivered")
    func failuresAndRetries() async throws {
        try await Self.withStandIn { standIn in
            try await withTestApp(adjust: Self.configure(standIn)) { client, database in
                let tokens = try await database.makeAccounts(2)
                let card = try await client.postCard(tokens[0], "카드")
                let gone = standIn.subscribe(answers: [.init(status: 410)])
                let busy = standIn.subscribe(answers: [
                    .init(status: 429, retryAfter: "1"), .init(status: 503), .init(status: 201, delay: .seconds(2)),
                ])
                for browser in [gone, busy] {
                    #expect(try await client.send(.post, "/v1/me/push-subscriptions", json: browser.body, token: tokens[0]).status == .created)
                }
                let started = ContinuousClock.now
                #expect(try await client.send(.put, "/v1/cards/\(card.id)/like", token: tokens[1]).status == .ok)
                // 429 (wait ≥ 1 s), 503 (≈ 1 s), a timeout (the server gives up after 1 s, though the
                // service answers 201 after 2), then the fourth attempt is answered in time.
                let clock = ContinuousClock()
                let deadline = clock.now + .seconds(30)
                while try await database.scalar("SELECT count(*)::int FROM push_deliveries") > 0, clock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                // The service records the timed-out attempt when its own delay ends, after the fourth.
                while standIn.received.filter({ $0.subscription == busy.id }).count < 4, clock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                let tries = standIn.received.filter { $0.subscription == busy.id }
                #expect(tries.map(\.answered) == [429, 503, 201, 201], "\(tries.map(\.answered))")
                #expect(ContinuousClock.now - started >= .seconds(1), "Retry-After was honoured")
                #expect(Set(tries.compactMap(\.topic)).count == 1, "every retry is the same message")
                #expect(standIn.received.filter { $0.subscription == gone.id }.count == 1)
                let items = try await client.send(.get, "/v1/me/push-subscriptions", token: tokens[0]).object["items"] as? [[String: Any]]
                #expect(items?.count == 1, "the 410 subscription is deleted")
                #expect(try await database.scalar("SELECT count(*)::int FROM push_deliveries") == 0)
            }
        }
    }

    @Test("settings and quiet hours hold: a muted type and anything in quiet hours is listed but not pushed")
    func settingsHold() async throws {
        try await Self.withStandIn { standIn in
            try await withTestApp(adjust: Self.configure(standIn)) { client, database in
                let tokens = try await database.makeAccounts(3)
                let card = try await client.postCard(tokens[0], "카드")
                let browser = standIn.subscribe()
                #expect(try await client.send(.post, "/v1/me/push-subscriptions", json: browser.body, token: tokens[0]).status == .created)
                _ = try await client.send(.patch, "/v1/me/notification-settings", json: ["cardLiked": false], token: tokens[0])
                #expect(try await client.send(.put, "/v1/cards/\(card.id)/like", token: tokens[1]).status == .ok)
                try await client.postCard(tokens[1], "답", parent: card.id)
                let pushed = try await standIn.waitForDelivered(1, to: browser.id)
                #expect(pushed.map { $0.payload?["type"] as? String } == ["card_commented"])
                // Quiet all day long, wherever: nothing is pushed, and the queue empties.
                let now = Date()
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = TimeZone(identifier: "Asia/Seoul")!
                let hour = calendar.component(.hour, from: now)
                let quiet: [String: Any] = [
                    "start": String(format: "%02d:00", hour), "end": String(format: "%02d:00", (hour + 2) % 24), "timeZone": "Asia/Seoul",
                ]
                #expect(try await client.send(.patch, "/v1/me/notification-settings", json: ["quietHours": quiet], token: tokens[0]).status == .ok)
                #expect(try await client.relate(tokens[2], "follow", try await client.accountID(tokens[0])).status == .ok)
                try await Task.sleep(for: .seconds(2))
                #expect(standIn.received.filter { $0.subscription == browser.id }.count == 1)
                #expect(try await database.scalar("SELECT count(*)::int FROM push_deliveries") == 0)
                #expect(try await client.notifications(tokens[0]).count == 3, "the list keeps every one")
            }
        }
    }

    @Test("an endpoint stored for a host no longer allowed is never called: its subscription is dropped")
    func disallowedAtSendTime() async throws {
        try await Self.withStandIn { standIn in
            try await withTestApp(adjust: Self.configure(standIn)) { client, database in
                let tokens = try await database.makeAccounts(2)
                let card = try await client.postCard(tokens[0], "카드")
                let account = try await client.accountID(tokens[0])
                let keys = try #require(standIn.subscribe().body["keys"] as? [String: String])
                let (p256dh, auth) = (Data(Base64URL.decode(keys["p256dh"]!)!), Data(Base64URL.decode(keys["auth"]!)!))
                // As if it were allowed once: an operator narrowed SOOM_PUSH_ALLOWED_HOSTS since.
                try await database.withDatabase { db in
                    try await db.execute(
                        """
                        INSERT INTO push_subscriptions (id, account_id, kind, address, p256dh, auth, created_at)
                        VALUES (gen_random_uuid(), \(UUID(uuidString: account)!), 'webpush', 'https://169.254.169.254/latest/meta-data/', \(p256dh), \(auth), now())
                        """)
                }
                #expect(try await client.send(.put, "/v1/cards/\(card.id)/like", token: tokens[1]).status == .ok)
                let clock = ContinuousClock()
                let deadline = clock.now + .seconds(10)
                while try await database.scalar("SELECT count(*)::int FROM push_subscriptions") > 0, clock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(try await database.scalar("SELECT count(*)::int FROM push_subscriptions") == 0)
                #expect(standIn.received.isEmpty)
            }
        }
    }

    @Test("an instance that dies mid-send: another sends again after the lease, with the same Topic, once; a late completion changes nothing")
    func instanceDiesMidSend() async throws {
        try await Self.withStandIn { standIn in
            try await withTestApp(backgroundJobs: false, adjust: Self.configure(standIn)) { client, database in
                let tokens = try await database.makeAccounts(2)
                let card = try await client.postCard(tokens[0], "카드")
                let browser = standIn.subscribe()
                #expect(try await client.send(.post, "/v1/me/push-subscriptions", json: browser.body, token: tokens[0]).status == .created)
                #expect(try await client.send(.put, "/v1/cards/\(card.id)/like", token: tokens[1]).status == .ok)
                let http = PushHTTPClient.make(extraRoots: standIn.caFile)
                do {
                    try await Self.dieMidSend(
                        standIn, browser: browser.id, card: card.id, tokens: tokens, client: client, database: database, http: http)
                } catch {
                    try? await http.shutdown()
                    throw error
                }
                try await http.shutdown()
            }
        }
    }

    static func dieMidSend(
        _ standIn: PushStandIn, browser: String, card: String, tokens: [String], client: any TestClientProtocol, database: TestDatabase,
        http: HTTPClient
    ) async throws {
        try await database.withDatabase { db in
            let repository = PostgresPushRepository(database: db)
            let sender = WebPushSender(
                client: http, vapid: try VAPIDKeeper(subject: "mailto:ops@soom.test", pem: nil, repository: repository),
                policy: PushEndpointPolicy(offered: [.webPush], allowedHosts: ["localhost:\(standIn.port)"]), logger: Logger(label: "test"),
                encode: NotificationJSON.bytes)
            // Instance A claims the delivery, sends it (the service accepts it), and dies before it can say so.
            let claimed = try await repository.claimDeliveries(limit: 10, lease: .seconds(2))
            try #require(claimed.count == 1)
            #expect(await sender.send(claimed[0].notification, to: claimed[0].address) == .delivered)
            // Instance B finds nothing due while A's lease runs …
            let b = DeliverPushes(repository: repository, senders: [.webPush: sender], lease: .seconds(60), retryBase: 0.5)
            #expect(try await b() == 0)
            // … and sends it once the lease has ended.
            try await Task.sleep(for: .milliseconds(2200))
            #expect(try await b() == 1)
            #expect(try await database.scalar("SELECT count(*)::int FROM push_deliveries") == 0)
            let received = standIn.received.filter { $0.subscription == browser }
            #expect(received.count == 2 && received.allSatisfy { $0.answered == 201 && $0.vapidValid })
            #expect(Set(received.compactMap(\.topic)).count == 1, "the same message: the service keeps one")
            #expect(Set(received.compactMap { $0.payload?["id"] as? String }).count == 1)

            // A claim that outlived its lease cannot complete what another claim holds now.
            #expect(try await client.send(.delete, "/v1/cards/\(card)/like", token: tokens[1]).status == .ok)
            #expect(try await client.send(.put, "/v1/cards/\(card)/like", token: tokens[1]).status == .ok)
            let first = try await repository.claimDeliveries(limit: 10, lease: .milliseconds(1))
            try #require(first.count == 1)
            try await Task.sleep(for: .milliseconds(1100))
            let second = try await repository.claimDeliveries(limit: 10, lease: .seconds(60))
            try #require(second.count == 1 && second[0].attempt == first[0].attempt + 1)
            try await repository.complete([
                PushCompletion(id: first[0].id, attempt: first[0].attempt, subscriptionID: first[0].subscriptionID, result: .done)
            ])
            #expect(try await database.scalar("SELECT count(*)::int FROM push_deliveries") == 1, "the stale completion did nothing")
            try await repository.complete([
                PushCompletion(id: second[0].id, attempt: second[0].attempt, subscriptionID: second[0].subscriptionID, result: .done)
            ])
            #expect(try await database.scalar("SELECT count(*)::int FROM push_deliveries") == 0)
        }
    }

    @Test(
        "FCM: a like reaches a phone's token through HTTP v1 with an OAuth token from the service account; 404 UNREGISTERED deletes it; a refused access token is exchanged anew"
    )
    func fcm() async throws {
        try await Self.withStandIn { standIn in
            try await withTestApp(adjust: try Self.configureFCM(standIn)) { client, database in
                let tokens = try await database.makeAccounts(2)
                let card = try await client.postCard(tokens[0], "폰으로 알려 줘")
                let phone = "dGVzdC1waG9uZQ:APA91bH-" + UUID().uuidString
                let stale = "c3RhbGU:APA91bH-" + UUID().uuidString
                standIn.script(
                    fcmToken: stale,
                    [.init(status: 404, body: #"{"error":{"code":404,"status":"NOT_FOUND","details":[{"errorCode":"UNREGISTERED"}]}}"#)])
                standIn.script(fcmToken: phone, [.init(status: 401), .init(status: 200)])
                for token in [phone, stale] {
                    let made = try await client.send(.post, "/v1/me/push-subscriptions", json: ["kind": "fcm", "token": token], token: tokens[0])
                    let kind = try made.object["kind"] as? String
                    #expect(made.status == .created && kind == "fcm" && !String(buffer: made.body).contains(token))
                }
                #expect(try await client.send(.put, "/v1/cards/\(card.id)/like", token: tokens[1]).status == .ok)
                let clock = ContinuousClock()
                let deadline = clock.now + .seconds(15)
                while try await database.scalar("SELECT count(*)::int FROM push_deliveries") > 0, clock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                let toPhone = standIn.fcmMessages.filter { $0.token == phone }
                #expect(toPhone.map(\.answered) == [401, 200], "\(toPhone.map(\.answered))")
                let listed = try #require(try await client.notifications(tokens[0]).first)
                #expect(toPhone.last?.payload?["id"] as? String == listed["id"] as? String)
                #expect(toPhone.last?.payload?["type"] as? String == "card_liked" && toPhone.last?.payload?["actor"] as? String == "null")
                #expect(toPhone.last?.collapseKey == (listed["id"] as? String)?.replacingOccurrences(of: "-", with: ""))
                #expect(toPhone.last?.priority == "normal")
                #expect(standIn.assertionsVerified == 2, "one access token, and a new one after FCM refused it")
                let items = try await client.send(.get, "/v1/me/push-subscriptions", token: tokens[0]).object["items"] as? [[String: Any]]
                #expect(items?.count == 1, "the unregistered token is deleted")
            }
        }
    }

    @Test(
        "APNs: over HTTP/2 with the team's provider token, an alert the app localizes and the Notification beside it; 410 and BadDeviceToken delete the token"
    )
    func apns() async throws {
        try await Self.withStandIn { standIn in
            try await withTestApp(adjust: Self.configureAPNs(standIn)) { client, database in
                let tokens = try await database.makeAccounts(2)
                let card = try await client.postCard(tokens[0], "아이폰으로 알려 줘")
                let phone = String(repeating: "a1", count: 32)
                let gone = String(repeating: "b2", count: 32)
                let bad = String(repeating: "c3", count: 32)
                standIn.script(apnsDevice: gone, [.init(status: 410, body: #"{"reason":"Unregistered"}"#)])
                standIn.script(apnsDevice: bad, [.init(status: 400, body: #"{"reason":"BadDeviceToken"}"#)])
                for device in [phone, gone, bad] {
                    let made = try await client.send(.post, "/v1/me/push-subscriptions", json: ["kind": "apns", "token": device], token: tokens[0])
                    #expect(made.status == .created)
                }
                #expect(
                    try await client.send(.post, "/v1/me/push-subscriptions", json: ["kind": "apns", "token": "zz"], token: tokens[0]).status
                        == .unprocessableContent)
                try await client.postCard(tokens[1], "답", parent: card.id)
                let clock = ContinuousClock()
                let deadline = clock.now + .seconds(15)
                while try await database.scalar("SELECT count(*)::int FROM push_deliveries") > 0, clock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                let toPhone = try #require(standIn.apnsMessages.first { $0.device == phone })
                let listed = try #require(try await client.notifications(tokens[0]).first)
                #expect(toPhone.http2, "APNs speaks HTTP/2 only")
                #expect(toPhone.tokenValid && toPhone.answered == 200)
                #expect(toPhone.headers["apns-topic"] == PushStandIn.bundleID && toPhone.headers["apns-push-type"] == "alert")
                #expect(toPhone.headers["apns-priority"] == "5")
                #expect(toPhone.headers["apns-collapse-id"] == (listed["id"] as? String)?.replacingOccurrences(of: "-", with: ""))
                #expect(toPhone.alert?["loc-key"] as? String == "card_commented")
                #expect(toPhone.payload?["id"] as? String == listed["id"] as? String && toPhone.payload?["type"] as? String == "card_commented")
                let items = try await client.send(.get, "/v1/me/push-subscriptions", token: tokens[0]).object["items"] as? [[String: Any]]
                #expect(items?.count == 1, "410 and BadDeviceToken delete their tokens")
            }
        }
    }
}
