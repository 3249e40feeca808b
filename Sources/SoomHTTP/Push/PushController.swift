import Hummingbird
import SoomDomain

/// The push routes of the contract's *Notifications* section: the VAPID public key (no session),
/// and the caller's push subscriptions.
struct PushController {
    let push: PushEnvironment

    func addRoutes(public routes: APIRoutes<AppRequestContext>, authenticated signedIn: APIRoutes<AuthenticatedContext>) {
        routes.on("/push/vapid-public-key", method: .get) { _, context in
            try await PushReactor(caller: nil, push: self.push).respond(to: .vapidPublicKey, context: context)
        }
        signedIn.on("/me/push-subscriptions", method: .post) { request, context in
            let body = try await request.decodeJSON(as: PushSubscriptionRequest.self)
            return try await self.reactor(context).respond(to: .subscribe(body.address), context: context)
        }
        signedIn.on("/me/push-subscriptions", method: .get) { _, context in
            try await self.reactor(context).respond(to: .list, context: context)
        }
        signedIn.on("/me/push-subscriptions/{id}", method: .delete) { _, context in
            try await self.reactor(context).respond(to: .unsubscribe(try context.pathID()), context: context)
        }
    }

    private func reactor(_ context: AuthenticatedContext) -> PushReactor {
        PushReactor(caller: context.caller, push: self.push)
    }
}
