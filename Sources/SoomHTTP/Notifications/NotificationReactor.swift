import Foundation
import Hummingbird
import SoomDomain

/// The caller's notifications: list (all or unread), count the unread, mark one read, mark all
/// read, follow them live; and the settings of what is pushed and streamed.
struct NotificationReactor: Reactor {
    enum Action: Sendable {
        case list(unreadOnly: Bool, PageRequest)
        case countUnread
        case markRead(UUID)
        case markAllRead
        /// Open the live stream, replaying what came after the last event the client saw.
        case stream(lastEventID: UUID?)
        case readSettings
        case changeSettings(NotificationSettings.Change)
    }

    enum Mutation: Sendable {
        case loaded([AccountNotification], nextCursor: String?)
        case countedUnread(UnreadNotifications)
        case markedRead(UUID)
        case markedAllRead
        /// Open, with its replay; it ends when the caller's session expires.
        case streamOpened(NotificationStream)
        case settingsRead(NotificationSettings)
        case settingsChanged(NotificationSettings)
    }

    enum State: Sendable, Equatable {
        case page([AccountNotification], nextCursor: String?)
        case unread(UnreadNotifications)
        case stream(NotificationStream)
        case settings(NotificationSettings)
        /// `204`.
        case done
    }

    let caller: Authenticate.Caller
    let notifications: any NotificationRepository
    let live: LiveNotifications
    let keepAlive: Duration

    func mutate(action: Action) async throws -> [Mutation] {
        let recipient = self.caller.account.id
        switch action {
        case .list(let unreadOnly, let page):
            let result = try await ListNotifications(self.notifications)(unreadOnly: unreadOnly, page: page, recipient: recipient)
            return [.loaded(result.items, nextCursor: result.nextCursor)]
        case .countUnread:
            return [.countedUnread(try await CountUnreadNotifications(self.notifications)(recipient: recipient))]
        case .markRead(let id):
            try await MarkNotificationsRead(self.notifications)(id, recipient: recipient)
            return [.markedRead(id)]
        case .markAllRead:
            try await MarkNotificationsRead(self.notifications).all(recipient: recipient)
            return [.markedAllRead]
        case .stream(let lastEventID):
            let opened = try await OpenNotificationStream(self.notifications, live: self.live)(account: recipient, lastEventID: lastEventID)
            return [
                .streamOpened(
                    NotificationStream(stream: opened.stream, replay: opened.replay, closesAt: self.caller.expiresAt, keepAlive: self.keepAlive))
            ]
        case .readSettings:
            return [.settingsRead(try await NotificationSettingsActions(self.notifications).read(account: recipient))]
        case .changeSettings(let change):
            return [.settingsChanged(try await NotificationSettingsActions(self.notifications).change(account: recipient, change))]
        }
    }

    /// A loaded page is appended to the list, and its cursor continues it.
    static func reduce(state: State?, mutation: Mutation) -> State? {
        switch (state, mutation) {
        case (.page(let shown, _), .loaded(let items, let next)): .page(shown + items, nextCursor: next)
        case (_, .loaded(let items, let next)): .page(items, nextCursor: next)
        case (_, .countedUnread(let counts)): .unread(counts)
        case (_, .markedRead), (_, .markedAllRead): .done
        case (_, .settingsRead(let settings)), (_, .settingsChanged(let settings)): .settings(settings)
        case (_, .streamOpened(let stream)): .stream(stream)
        }
    }
}

extension NotificationReactor.State: ResponseState {
    func response() -> Response {
        switch self {
        case .page(let items, let next):
            let body = ListBody(items: items.map(NotificationBody.init), nextCursor: next)
            return JSON.response(.ok, writing: body, capacity: body.capacity)
        case .unread(let counts):
            return JSON.response(.ok, writing: UnreadBody(counts: counts), capacity: 192)
        case .stream(let stream):
            return stream.response()
        case .settings(let settings):
            return JSON.response(.ok, writing: NotificationSettingsBody(settings: settings), capacity: 256)
        case .done:
            return Response(status: .noContent)
        }
    }
}

/// `{"total", "byType": {type: count}}`, the types in the contract's order.
struct UnreadBody: JSONWritable, Equatable {
    let counts: UnreadNotifications

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("total", self.counts.total)
        writer.key("byType")
        writer.beginObject()
        for type in NotificationType.allCases {
            if let count = self.counts.byType[type] {
                writer.key(type.rawValue)
                writer.int(count)
            }
        }
        writer.endObject()
        writer.endObject()
    }
}
