import Hummingbird
import SoomDomain

/// The routes of the contract's *Notifications* section. All need a session.
struct NotificationsController {
    let notifications: any NotificationRepository

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
    }

    private func reactor(_ context: AuthenticatedContext) -> NotificationReactor {
        NotificationReactor(caller: context.caller, notifications: self.notifications)
    }
}
