import Hummingbird
import SoomDomain

/// The routes of the contract's *People* section. All need a session.
struct PeopleController {
    let people: PeopleEnvironment

    func addRoutes(to routes: APIRoutes<AuthenticatedContext>) {
        routes.on("/users/{id}", method: .get) { _, context in
            try await self.one(context).respond(to: .show(try context.pathID()), context: context)
        }
        routes.on("/users/{id}/follow", method: .put) { _, context in
            try await self.one(context).respond(to: .follow(try context.pathID(), true), context: context)
        }
        routes.on("/users/{id}/follow", method: .delete) { _, context in
            try await self.one(context).respond(to: .follow(try context.pathID(), false), context: context)
        }
        routes.on("/users/{id}/block", method: .put) { _, context in
            try await self.one(context).respond(to: .block(try context.pathID(), true), context: context)
        }
        routes.on("/users/{id}/block", method: .delete) { _, context in
            try await self.one(context).respond(to: .block(try context.pathID(), false), context: context)
        }
        routes.on("/users/{id}/followers", method: .get) { request, context in
            try await self.lists(context).respond(to: .people(.followers(of: try context.pathID()), try request.pageRequest()), context: context)
        }
        routes.on("/users/{id}/following", method: .get) { request, context in
            try await self.lists(context).respond(to: .people(.following(of: try context.pathID()), try request.pageRequest()), context: context)
        }
        routes.on("/me/blocks", method: .get) { request, context in
            try await self.lists(context).respond(to: .blocks(try request.pageRequest()), context: context)
        }
    }

    private func one(_ context: AuthenticatedContext) -> PeopleReactor {
        PeopleReactor(caller: context.caller, people: self.people)
    }

    private func lists(_ context: AuthenticatedContext) -> PeopleListReactor {
        PeopleListReactor(caller: context.caller, people: self.people)
    }
}
