import Foundation

/// What an account wants pushed to its devices and streamed to its open pages: each switchable
/// type on or off, and quiet hours during which nothing is pushed. The list of notifications keeps
/// every one whatever is set here, and moderation notices (`card_hidden`, `posting_restricted`)
/// are never switched off.
public struct NotificationSettings: Sendable, Equatable {
    /// The switchable types turned off.
    public var muted: Set<NotificationType>
    public var quietHours: QuietHours?

    /// Every type on, no quiet hours: an account that never changed its settings.
    public static let everything = NotificationSettings(muted: [], quietHours: nil)

    /// The types a person may switch off, in the contract's order, with their field names.
    public static let switchable: [(type: NotificationType, field: String)] = [
        (.cardLiked, "cardLiked"), (.cardCommented, "cardCommented"), (.followed, "followed"),
        (.favoriteTagUsed, "favoriteTagUsed"), (.followingPosted, "followingPosted"), (.pollClosed, "pollClosed"),
    ]

    public init(muted: Set<NotificationType>, quietHours: QuietHours?) {
        self.muted = muted.filter { type in Self.switchable.contains { $0.type == type } }
        self.quietHours = quietHours
    }

    /// Whether a notification of `type` may be pushed or streamed (quiet hours aside).
    public func allows(_ type: NotificationType) -> Bool { !self.muted.contains(type) }

    /// Whether a notification of `type` may be pushed at `date`: allowed, and not in quiet hours.
    /// Moderation notices are always pushed, quiet hours or not.
    public func pushes(_ type: NotificationType, at date: Date) -> Bool {
        guard Self.switchable.contains(where: { $0.type == type }) else { return true }
        return self.allows(type) && !(self.quietHours?.contains(date) ?? false)
    }

    /// These settings with `change` applied: only what it names changes.
    public func applying(_ change: Change) -> NotificationSettings {
        var muted = self.muted
        for (type, on) in change.switches {
            if on { muted.remove(type) } else { muted.insert(type) }
        }
        return NotificationSettings(muted: muted, quietHours: change.quietHours ?? self.quietHours)
    }

    /// A `PATCH`: the switches sent, and the quiet hours if sent (`.some(nil)` clears them).
    public struct Change: Sendable, Equatable {
        public var switches: [NotificationType: Bool]
        public var quietHours: QuietHours??

        public init(switches: [NotificationType: Bool] = [:], quietHours: QuietHours?? = nil) {
            self.switches = switches
            self.quietHours = quietHours
        }
    }
}

/// A daily span, in a time zone, during which nothing is pushed. `end` before `start` spans
/// midnight (22:00–07:00); the span includes `start` and excludes `end`.
public struct QuietHours: Sendable, Equatable {
    /// Minutes after midnight, 0…1439.
    public let start: Int
    public let end: Int
    public let timeZone: TimeZone

    /// - Throws: `422 validation_failed` on `quietHours` when a time is not `HH:MM` (00:00–23:59),
    ///   the two are equal, or the zone is not an IANA time zone name.
    public init(start: String, end: String, timeZone: String) throws(SoomError) {
        guard let start = Self.minutes(start), let end = Self.minutes(end) else {
            throw .validationFailed(field: "quietHours", "Quiet hours start and end as HH:MM, from 00:00 to 23:59.")
        }
        guard start != end else { throw .validationFailed(field: "quietHours", "Quiet hours must start and end at different times.") }
        guard Self.knownZones.contains(timeZone), let zone = TimeZone(identifier: timeZone) else {
            throw .validationFailed(field: "quietHours", "The time zone must be an IANA time zone name, such as Asia/Seoul.")
        }
        self.init(startMinutes: start, endMinutes: end, timeZone: zone)
    }

    /// From stored values, already checked.
    public init(startMinutes: Int, endMinutes: Int, timeZone: TimeZone) {
        self.start = startMinutes
        self.end = endMinutes
        self.timeZone = timeZone
    }

    /// `HH:MM`.
    public static func text(_ minutes: Int) -> String {
        let (hours, rest) = minutes.quotientAndRemainder(dividingBy: 60)
        return (hours < 10 ? "0" : "") + "\(hours):" + (rest < 10 ? "0" : "") + "\(rest)"
    }

    /// Whether `date`, on the wall clock of `timeZone`, falls in the span.
    public func contains(_ date: Date) -> Bool {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = self.timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        return self.start < self.end ? (self.start <= minute && minute < self.end) : (minute >= self.start || minute < self.end)
    }

    private static let knownZones = Set(TimeZone.knownTimeZoneIdentifiers).union(["UTC"])

    /// Minutes after midnight of an exact `HH:MM`, or nil.
    private static func minutes(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 5, bytes[2] == UInt8(ascii: ":"),
            let hours = Int(String(decoding: bytes[0..<2], as: UTF8.self)), let minutes = Int(String(decoding: bytes[3..<5], as: UTF8.self)),
            bytes[0..<2].allSatisfy({ (48...57).contains($0) }), bytes[3..<5].allSatisfy({ (48...57).contains($0) }),
            (0..<24).contains(hours), (0..<60).contains(minutes)
        else { return nil }
        return hours * 60 + minutes
    }
}
