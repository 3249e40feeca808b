import Foundation
import HTTPTypes
import Hummingbird
import SoomDomain

/// The routes of the contract's *Notifications* section. All need a session.
struct NotificationsController {
    let notifications: any NotificationRepository
    let live: LiveNotifications
    /// How often an idle stream sends `: keep-alive`.
    let keepAlive: Duration

    func addRoutes(to routes: APIRoutes<AuthenticatedContext>) {
        routes.on("/notifications", method: .get) { request, context in
            let unreadOnly: Bool
            switch request.uri.queryParameters.get("unread") {
            case nil, "false": unreadOnly = false
            case "true": unreadOnly = true
            default: throw SoomError.invalidRequest("The query parameter 'unread' must be true or false.", field: "unread")
            }
            return try await self.reactor(context).respond(to: .list(unreadOnly: unreadOnly, try request.pageRequest()), context: context)
        }
        routes.on("/notifications/unread-count", method: .get) { _, context in
            try await self.reactor(context).respond(to: .countUnread, context: context)
        }
        routes.on("/notifications/read-all", method: .post) { _, context in
            try await self.reactor(context).respond(to: .markAllRead, context: context)
        }
        routes.on("/notifications/{id}/read", method: .post) { _, context in
            try await self.reactor(context).respond(to: .markRead(try context.pathID()), context: context)
        }
        routes.on("/notifications/stream", method: .get) { request, context in
            var lastEventID: UUID?
            if let sent = request.headers[Self.lastEventID], !sent.isEmpty {
                guard let id = UUID(uuidString: sent) else {
                    throw SoomError.invalidRequest("The header Last-Event-ID must be the id of a notification.", field: "Last-Event-ID")
                }
                lastEventID = id
            }
            return try await self.reactor(context).respond(to: .stream(lastEventID: lastEventID), context: context)
        }
        routes.on("/me/notification-settings", method: .get) { _, context in
            try await self.reactor(context).respond(to: .readSettings, context: context)
        }
        routes.on("/me/notification-settings", method: .patch) { request, context in
            let patch = try await request.decodeJSON(as: NotificationSettingsPatch.self)
            return try await self.reactor(context).respond(to: .changeSettings(patch.change), context: context)
        }
    }

    static let lastEventID = HTTPField.Name("Last-Event-ID")!

    private func reactor(_ context: AuthenticatedContext) -> NotificationReactor {
        NotificationReactor(caller: context.caller, notifications: self.notifications, live: self.live, keepAlive: self.keepAlive)
    }
}
