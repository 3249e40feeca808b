import Foundation
import SoomDomain

/// The contract's `Notification`, every member present (`null` where empty).
struct NotificationBody: JSONWritable, Equatable {
    let notification: AccountNotification

    func write(to writer: inout JSONWriter) {
        let notification = self.notification
        writer.beginObject()
        writer.key("id")
        writer.uuid(notification.id)
        writer.key("type")
        writer.string(notification.type.rawValue)
        writer.key("createdAt")
        writer.timestamp(notification.createdAt)
        writer.key("read")
        writer.bool(notification.read)
        writer.key("actor")
        if let actor = notification.actor { UserSummaryBody(user: actor).write(to: &writer) } else { writer.null() }
        writer.key("cardId")
        writer.uuid(notification.cardID)
        writer.key("tag")
        writer.string(notification.tag)
        writer.key("until")
        writer.timestamp(notification.until)
        writer.endObject()
    }
}
