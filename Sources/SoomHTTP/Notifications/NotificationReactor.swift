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
        case markedRead
    }

    enum State: Sendable, Equatable {
        case pending
        case page([AccountNotification], nextCursor: String?)
        case done
    }

    let caller: Authenticate.Caller
    let notifications: any NotificationRepository
    var initialState: State { .pending }

    func mutate(action: Action) async throws -> [Mutation] {
        let recipient = self.caller.account.id
        switch action {
        case .list(let unreadOnly, let page):
            let result = try await ListNotifications(self.notifications)(unreadOnly: unreadOnly, page: page, recipient: recipient)
            return [.loaded(result.items, nextCursor: result.nextCursor)]
        case .markRead(let id):
            try await MarkNotificationsRead(self.notifications)(id, recipient: recipient)
            return [.markedRead]
        case .markAllRead:
            try await MarkNotificationsRead(self.notifications).all(recipient: recipient)
            return [.markedRead]
        }
    }

    static func reduce(state: State, mutation: Mutation) -> State {
        switch mutation {
        case .loaded(let items, let next): .page(items, nextCursor: next)
        case .markedRead: .done
        }
    }
}

extension NotificationReactor.State: ResponseState {
    func response() throws -> Response {
        switch self {
        case .pending:
            throw IncompleteReactorState(state: "\(self)")
        case .page(let items, let next):
            let body = ListBody(items: items.map(NotificationBody.init), nextCursor: next)
            return JSON.response(.ok, writing: body, capacity: body.capacity)
        case .done:
            return Response(status: .noContent)
        }
    }
}
