import Hummingbird
import SoomDomain

/// The routes of the contract's *Feeds* section (but the tag feed), plus a card's comment cards
/// and the caller's own.
struct FeedsController {
    let cards: CardEnvironment

    func addRoutes(to routes: APIRoutes<AuthenticatedContext>) {
        routes.on("/feeds/latest", method: .get) { request, context in
            try await self.read(.latest, request, context)
        }
        routes.on("/feeds/following", method: .get) { request, context in
            try await self.read(.following, request, context)
        }
        routes.on("/feeds/popular", method: .get) { request, context in
            try await self.read(.popular, request, context)
        }
        routes.on("/feeds/nearby", method: .get) { request, context in
            let location = try GeoLocation(latitude: try request.requiredNumber("latitude"), longitude: try request.requiredNumber("longitude"))
            guard let radius = try Request.integer(request.uri.queryParameters.get("radiusKm"), field: "radiusKm") else {
                throw SoomError.invalidRequest("The query parameter 'radiusKm' is required.", field: "radiusKm")
            }
            return try await self.read(.nearby(location, try NearbyRadius(kilometres: radius)), request, context)
        }
        routes.on("/users/{id}/cards", method: .get) { request, context in
            try await self.read(.author(try context.pathID()), request, context)
        }
        routes.on("/cards/{id}/comments", method: .get) { request, context in
            try await self.read(.comments(parent: try context.pathID()), request, context)
        }
        routes.on("/me/comments", method: .get) { request, context in
            try await self.read(.commentsBy(context.caller.account.id), request, context)
        }
    }

    private func read(_ feed: Feed, _ request: Request, _ context: AuthenticatedContext) async throws -> Response {
        try await FeedReactor(caller: context.caller, cards: self.cards).respond(to: .read(feed, try request.pageRequest()), context: context)
    }
}
