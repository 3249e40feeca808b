import Foundation
import Hummingbird
import SoomDomain

/// The routes of the contract's *Tags* section, and the tag feed of *Feeds*.
///
/// The top ten, search and one tag are public (a session, when sent, must be valid: a bad
/// token is still `401`); favourites and the tag feed need a session. `{name}` is
/// percent-decoded, then normalised like any tag (`%23하늘`, `하늘` and `%20하늘` are one tag).
struct TagsController {
    let tags: TagEnvironment
    let cards: CardEnvironment

    func addRoutes(optionalSession routes: APIRoutes<AppRequestContext>, authenticated: APIRoutes<AuthenticatedContext>) {
        routes.on("/tags/ranked", method: .get) { _, context in
            try await self.reader(context).respond(to: .ranked, context: context)
        }
        routes.on("/tags/search", method: .get) { request, context in
            let query = request.uri.queryParameters
            guard let q = query.get("q") else { throw SoomError.invalidRequest("The query parameter 'q' is required.", field: "q") }
            let limit = try Request.integer(query.get("limit"), field: "limit")
            return try await self.reader(context).respond(to: .search(q: q, limit: limit), context: context)
        }
        routes.on("/tags/{name}", method: .get) { _, context in
            try await self.reader(context).respond(to: .show(name: try context.tagName()), context: context)
        }
        authenticated.on("/tags/{name}/favorite", method: .put) { _, context in
            try await self.favorites(context).respond(to: .set(name: try context.tagName(), favorite: true), context: context)
        }
        authenticated.on("/tags/{name}/favorite", method: .delete) { _, context in
            try await self.favorites(context).respond(to: .set(name: try context.tagName(), favorite: false), context: context)
        }
        authenticated.on("/me/favorite-tags", method: .get) { _, context in
            try await self.favorites(context).respond(to: .list, context: context)
        }
        authenticated.on("/tags/{name}/cards", method: .get) { request, context in
            let tag = try Tag(normalising: try context.tagName(), field: "name")
            let page = try request.pageRequest()
            return try await FeedReactor(caller: context.caller, cards: self.cards).respond(to: .read(.tag(tag), page), context: context)
        }
    }

    private func reader(_ context: AppRequestContext) -> TagReactor {
        TagReactor(caller: context.caller, tags: self.tags)
    }

    private func favorites(_ context: AuthenticatedContext) -> FavoriteTagReactor {
        FavoriteTagReactor(caller: context.caller, tags: self.tags)
    }
}

extension RequestContext {
    /// The `{name}` path parameter, percent-decoded (not yet normalised). Undecodable text is
    /// no valid tag: `422 validation_failed` on `name`.
    func tagName() throws -> String {
        guard let raw = self.parameters.get("name"), raw.utf8.count <= 1024, let name = raw.removingPercentEncoding else {
            throw SoomError.validationFailed(field: "name", "The tag name is not valid.")
        }
        return name
    }
}
