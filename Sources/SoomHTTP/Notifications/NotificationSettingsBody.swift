import Foundation
import SoomDomain

/// The contract's `NotificationSettings`: every switch, and the quiet hours or `null`.
struct NotificationSettingsBody: JSONWritable, Equatable {
    let settings: NotificationSettings

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        for (type, field) in NotificationSettings.switchable {
            writer.key(field)
            writer.bool(self.settings.allows(type))
        }
        writer.key("quietHours")
        if let quiet = self.settings.quietHours {
            writer.beginObject()
            writer.member("start", QuietHours.text(quiet.start))
            writer.member("end", QuietHours.text(quiet.end))
            writer.key("timeZone")
            writer.string(quiet.timeZone.identifier)
            writer.endObject()
        } else {
            writer.null()
        }
        writer.endObject()
    }
}

/// `PATCH /v1/me/notification-settings`: any of the switches, and `quietHours` (an object, or
/// `null` to clear them). A switch sent as `null`, or a wrong type, is `400 invalid_request`;
/// quiet hours that break a rule are `422` on `quietHours`.
struct NotificationSettingsPatch: Decodable {
    let change: NotificationSettings.Change

    struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    struct Quiet: Decodable {
        let start: String
        let end: String
        let timeZone: String
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        var change = NotificationSettings.Change()
        for (type, field) in NotificationSettings.switchable {
            if let on = try container.decodeUnlessNull(Bool.self, forKey: Key(stringValue: field)) { change.switches[type] = on }
        }
        let quiet = Key(stringValue: "quietHours")
        if container.contains(quiet) {
            if try container.decodeNil(forKey: quiet) {
                change.quietHours = .some(nil)
            } else {
                let sent = try container.decode(Quiet.self, forKey: quiet)
                change.quietHours = .some(try QuietHours(start: sent.start, end: sent.end, timeZone: sent.timeZone))
            }
        }
        self.change = change
    }
}
