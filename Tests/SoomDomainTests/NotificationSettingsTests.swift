import Foundation
import Testing

@testable import SoomDomain

@Suite("Notification settings, quiet hours and the live streams' registry")
struct NotificationSettingsTests {
    static func at(_ text: String) -> Date { Date(rfc3339: text)! }

    @Test("quiet hours: HH:MM only, start and end differ, an IANA zone")
    func quietHoursRules() throws {
        #expect(throws: Never.self) { try QuietHours(start: "22:30", end: "07:00", timeZone: "Asia/Seoul") }
        #expect(throws: Never.self) { try QuietHours(start: "00:00", end: "23:59", timeZone: "UTC") }
        for (start, end, zone) in [
            ("24:00", "07:00", "Asia/Seoul"), ("7:00", "08:00", "Asia/Seoul"), ("07:60", "08:00", "Asia/Seoul"), ("07:00", "07:00", "UTC"),
            ("22:00", "07:00", "Mars/Olympus"), ("22:00", "07:00", ""), ("+1:00", "07:00", "UTC"), ("٠٧:٠٠", "08:00", "UTC"),
        ] {
            #expect(throws: SoomError.self, "\(start)–\(end) \(zone)") { try QuietHours(start: start, end: end, timeZone: zone) }
        }
    }

    @Test("quiet hours hold on the wall clock of their zone, across midnight, start included and end excluded")
    func quietHoursSpan() throws {
        let night = try QuietHours(start: "22:30", end: "07:00", timeZone: "Asia/Seoul")  // UTC+9
        #expect(night.contains(Self.at("2026-11-29T13:30:00Z")))  // 22:30 in Seoul
        #expect(night.contains(Self.at("2026-11-29T21:59:00Z")))  // 06:59
        #expect(!night.contains(Self.at("2026-11-29T22:00:00Z")))  // 07:00
        #expect(!night.contains(Self.at("2026-11-29T13:29:00Z")))  // 22:29
        let lunch = try QuietHours(start: "12:00", end: "13:00", timeZone: "Europe/Berlin")  // UTC+1 in November
        #expect(lunch.contains(Self.at("2026-11-29T11:15:00Z")) && !lunch.contains(Self.at("2026-11-29T12:15:00Z")))
        #expect(QuietHours.text(night.start) == "22:30" && QuietHours.text(night.end) == "07:00" && QuietHours.text(5) == "00:05")
    }

    @Test("switches: a change names only what it changes; moderation notices are always pushed, quiet hours or not")
    func switches() throws {
        let quiet = try QuietHours(start: "00:00", end: "23:59", timeZone: "UTC")
        var settings = NotificationSettings.everything.applying(.init(switches: [.cardLiked: false, .followed: false]))
        #expect(!settings.allows(.cardLiked) && !settings.allows(.followed) && settings.allows(.cardCommented))
        settings = settings.applying(.init(switches: [.followed: true], quietHours: .some(quiet)))
        #expect(!settings.allows(.cardLiked) && settings.allows(.followed) && settings.quietHours == quiet)
        #expect(settings.applying(.init()).quietHours == quiet)
        #expect(settings.applying(.init(quietHours: .some(nil))).quietHours == nil)
        let midday = Self.at("2026-11-29T12:00:00Z")
        #expect(!settings.pushes(.followed, at: midday), "quiet hours")
        #expect(settings.pushes(.cardHidden, at: midday) && settings.pushes(.postingRestricted, at: midday))
        #expect(NotificationSettings(muted: [.cardHidden], quietHours: nil).allows(.cardHidden), "moderation notices cannot be muted")
        #expect(NotificationSettings.everything.pushes(.followingPosted, at: midday))
    }

    static func notification(_ type: NotificationType = .followed) -> AccountNotification {
        AccountNotification(id: UUID(), type: type, createdAt: Date(), read: false, actor: nil, cardID: nil, tag: nil, until: nil)
    }

    @Test("streams: none open while suspended; a sixth closes the oldest; delivery follows settings; closing ends them")
    func registry() async throws {
        let live = LiveNotifications(perAccount: 5)
        let (me, other) = (UUID(), UUID())
        #expect(live.open(account: me) == nil, "not listening yet")
        live.resume()
        let streams = (0..<6).compactMap { _ in live.open(account: me) }
        #expect(streams.count == 6 && live.count == 5)
        var oldest = streams[0].events.makeAsyncIterator()
        #expect(await oldest.next() == nil, "the sixth closed the oldest")
        let theirs = try #require(live.open(account: other))
        #expect(live.watched([me, other, UUID()]) == [me, other])

        let liked = Self.notification(.cardLiked)
        let followed = Self.notification()
        let muting = NotificationSettings(muted: [.cardLiked], quietHours: nil)
        live.deliver([
            LiveNotification(recipient: me, notification: liked, settings: muting),
            LiveNotification(recipient: me, notification: followed, settings: muting),
        ])
        live.close(account: me)
        for stream in streams[1...] {
            var events = stream.events.makeAsyncIterator()
            #expect(await events.next()?.id == followed.id)
            #expect(await events.next() == nil)
        }
        #expect(live.count == 1 && live.watched([me]).isEmpty)
        live.suspend()
        var their = theirs.events.makeAsyncIterator()
        #expect(await their.next() == nil && live.count == 0)
        #expect(live.open(account: other) == nil)
    }
}
