import Foundation
import Hummingbird
import SoomDomain

/// Push subscriptions of the caller (add, list, remove), and the server's VAPID public key.
struct PushReactor: Reactor {
    enum Action: Sendable {
        case vapidPublicKey
        case subscribe(PushAddress)
        case list
        case unsubscribe(UUID)
    }

    enum Mutation: Sendable {
        case keyRead(String)
        case subscribed(PushSubscription, created: Bool)
        case listed([PushSubscription])
        case unsubscribed(UUID)
    }

    enum State: Sendable, Equatable {
        case key(String)
        /// `201` when new, `200` when the same endpoint or token was saved already.
        case subscription(PushSubscription, created: Bool)
        case list([PushSubscription])
        /// `204`.
        case done
    }

    /// nil for the public key, which needs no session.
    let caller: Authenticate.Caller?
    let push: PushEnvironment

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .vapidPublicKey:
            return [.keyRead(try await self.push.vapidPublicKey())]
        case .subscribe(let address):
            let saved = try await self.push.subscriptions.subscribe(account: try self.account(), address)
            return [.subscribed(saved.subscription, created: saved.created)]
        case .list:
            return [.listed(try await self.push.subscriptions.list(account: try self.account()))]
        case .unsubscribe(let id):
            try await self.push.subscriptions.unsubscribe(account: try self.account(), id: id)
            return [.unsubscribed(id)]
        }
    }

    private func account() throws -> UUID {
        guard let caller = self.caller else { throw SoomError.unauthorized }
        return caller.account.id
    }

    static func reduce(state: State?, mutation: Mutation) -> State? {
        switch mutation {
        case .keyRead(let key): .key(key)
        case .subscribed(let subscription, let created): .subscription(subscription, created: created)
        case .listed(let items): .list(items)
        case .unsubscribed: .done
        }
    }
}

extension PushReactor.State: ResponseState {
    func response() -> Response {
        switch self {
        case .key(let key):
            return JSON.response(.ok, writing: PublicKeyBody(key: key), capacity: 128)
        case .subscription(let subscription, let created):
            return JSON.response(created ? .created : .ok, writing: PushSubscriptionBody(subscription: subscription), capacity: 128)
        case .list(let items):
            return JSON.response(.ok, writing: PushSubscriptionList(items: items), capacity: 64 + 128 * items.count)
        case .done:
            return Response(status: .noContent)
        }
    }
}

/// `{"publicKey"}`.
struct PublicKeyBody: JSONWritable, Equatable {
    let key: String

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("publicKey", self.key)
        writer.endObject()
    }
}

/// The contract's `PushSubscription`: `{"id","kind","createdAt"}`, never the address or keys.
struct PushSubscriptionBody: JSONWritable, Equatable {
    let subscription: PushSubscription

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("id", self.subscription.id)
        writer.member("kind", self.subscription.kind.rawValue)
        writer.member("createdAt", self.subscription.createdAt)
        writer.endObject()
    }
}

/// `{"items": [PushSubscription]}`.
struct PushSubscriptionList: JSONWritable, Equatable {
    let items: [PushSubscription]

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("items")
        writer.beginArray()
        for item in self.items { PushSubscriptionBody(subscription: item).write(to: &writer) }
        writer.endArray()
        writer.endObject()
    }
}
