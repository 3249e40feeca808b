import Foundation
import Hummingbird
import SoomDomain

/// The caller's notifications: list (all or unread), mark one read, mark all read.
struct NotificationReactor: Reactor {
    enum Action: Sendable {
        case list(unreadOnly: Bool, PageRequest)
        case markRead(UUID)
        case markAllRead
    }

    enum Mutation: Sendable {
        case loaded([AccountNotification], nextCursor: String?)
        case markedRead(UUID)
        case markedAllRead
    }

    enum State: Sendable, Equatable {
        case page([AccountNotification], nextCursor: String?)
        /// `204`.
        case done
    }

    let caller: Authenticate.Caller
    let notifications: any NotificationRepository

    func mutate(action: Action) async throws -> [Mutation] {
        let recipient = self.caller.account.id
        switch action {
        case .list(let unreadOnly, let page):
            let result = try await ListNotifications(self.notifications)(unreadOnly: unreadOnly, page: page, recipient: recipient)
            return [.loaded(result.items, nextCursor: result.nextCursor)]
        case .markRead(let id):
            try await MarkNotificationsRead(self.notifications)(id, recipient: recipient)
            return [.markedRead(id)]
        case .markAllRead:
            try await MarkNotificationsRead(self.notifications).all(recipient: recipient)
            return [.markedAllRead]
        }
    }

    /// A loaded page is appended to the list, and its cursor continues it.
    static func reduce(state: State?, mutation: Mutation) -> State? {
        switch (state, mutation) {
        case (.page(let shown, _), .loaded(let items, let next)): .page(shown + items, nextCursor: next)
        case (_, .loaded(let items, let next)): .page(items, nextCursor: next)
        case (_, .markedRead), (_, .markedAllRead): .done
        }
    }
}

extension NotificationReactor.State: ResponseState {
    func response() -> Response {
        switch self {
        case .page(let items, let next):
            let body = ListBody(items: items.map(NotificationBody.init), nextCursor: next)
            return JSON.response(.ok, writing: body, capacity: body.capacity)
        case .done:
            return Response(status: .noContent)
        }
    }
}
