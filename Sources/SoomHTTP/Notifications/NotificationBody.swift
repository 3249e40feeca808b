import Foundation
import SoomDomain

/// The contract's `Notification`, every member present (`null` where empty).
struct NotificationBody: JSONWritable, Equatable {
    let notification: AccountNotification

    func write(to writer: inout JSONWriter) {
        let notification = self.notification
        writer.beginObject()
        writer.member("id", notification.id)
        writer.member("type", notification.type.rawValue)
        writer.member("createdAt", notification.createdAt)
        writer.member("read", notification.read)
        writer.member("actor", notification.actor.map(UserSummaryBody.init(user:)))
        writer.member("cardId", notification.cardID)
        writer.member("tag", notification.tag)
        writer.member("until", notification.until)
        writer.endObject()
    }
}

/// A notification as the contract's JSON, for those outside this module that carry it (push payloads).
public enum NotificationJSON {
    public static func bytes(_ notification: AccountNotification) -> [UInt8] {
        var writer = JSONWriter(capacity: 512)
        NotificationBody(notification: notification).write(to: &writer)
        return writer.bytes
    }
}
