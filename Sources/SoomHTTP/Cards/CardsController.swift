import HTTPTypes
import Hummingbird
import SoomDomain

/// The routes of the contract's *Cards* section, reports included.
struct CardsController {
    let cards: CardEnvironment

    func addRoutes(to routes: APIRoutes<AuthenticatedContext>) {
        routes.on("/cards", method: .post, limit: .posting) { request, context in
            let draft = try await request.decodeJSON(as: CreateCardRequest.self).draft()
            let key = request.headers[.idempotencyKey]
            return try await self.reactor(context).respond(to: .post(draft, parentID: nil, idempotencyKey: key), context: context)
        }
        routes.on("/cards/{id}", method: .get) { _, context in
            try await self.reactor(context).respond(to: .show(try context.pathID()), context: context)
        }
        routes.on("/cards/{id}", method: .delete) { _, context in
            try await self.reactor(context).respond(to: .delete(try context.pathID()), context: context)
        }
        routes.on("/cards/{id}/like", method: .put) { _, context in
            try await self.reactor(context).respond(to: .like(try context.pathID(), true), context: context)
        }
        routes.on("/cards/{id}/like", method: .delete) { _, context in
            try await self.reactor(context).respond(to: .like(try context.pathID(), false), context: context)
        }
        routes.on("/cards/{id}/poll/vote", method: .put) { request, context in
            let card = try context.pathID()
            let ballot = try await request.decodeJSON(as: VoteRequest.self).ballot()
            return try await self.reactor(context).respond(to: .vote(card, ballot), context: context)
        }
        routes.on("/cards/{id}/poll/vote", method: .delete) { _, context in
            try await self.reactor(context).respond(to: .vote(try context.pathID(), .none), context: context)
        }
        routes.on("/cards/{id}/comments", method: .post, limit: .posting) { request, context in
            let parent = try context.pathID()
            let draft = try await request.decodeJSON(as: CreateCardRequest.self).draft()
            let key = request.headers[.idempotencyKey]
            return try await self.reactor(context).respond(to: .post(draft, parentID: parent, idempotencyKey: key), context: context)
        }
        routes.on("/cards/{id}/reports", method: .post) { request, context in
            let card = try context.pathID()
            let reason = try await request.decodeJSON(as: ReportCardRequest.self).validated()
            return try await self.reactor(context).respond(to: .report(card, reason), context: context)
        }
    }

    private func reactor(_ context: AuthenticatedContext) -> CardReactor {
        CardReactor(caller: context.caller, cards: self.cards)
    }
}

extension HTTPField.Name {
    static let idempotencyKey = Self("Idempotency-Key")!
}
