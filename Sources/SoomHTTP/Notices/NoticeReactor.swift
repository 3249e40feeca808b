import Foundation
import Hummingbird
import SoomDomain

/// What operators tell every client: the notices, and whether a client's version should update.
struct NoticeReactor: Reactor {
    enum Action: Sendable {
        case list(PageRequest)
        case checkVersion(platform: String, version: String)
    }

    enum Mutation: Sendable {
        case loaded([Notice], nextCursor: String?)
        case checked(ClientPlatform, ClientVersionPolicy, ClientVersionStatus)
    }

    enum State: Sendable, Equatable {
        case page([Notice], nextCursor: String?)
        case version(ClientPlatform, ClientVersionPolicy, ClientVersionStatus)
    }

    let operators: any OperatorRepository
    let switches: OperatorSwitches

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .list(let page):
            let result = try await ListNotices(self.operators)(page: page)
            return [.loaded(result.items, nextCursor: result.nextCursor)]
        case .checkVersion(let platform, let version):
            let checked = try CheckClientVersion(self.switches)(platform: platform, version: version)
            return [.checked(checked.platform, checked.policy, checked.status)]
        }
    }

    static func reduce(state: State?, mutation: Mutation) -> State? {
        switch mutation {
        case .loaded(let items, let next): .page(items, nextCursor: next)
        case .checked(let platform, let policy, let status): .version(platform, policy, status)
        }
    }
}

extension NoticeReactor.State: ResponseState {
    func response() -> Response {
        switch self {
        case .page(let items, let next):
            let body = ListBody(items: items.map(NoticeBody.init), nextCursor: next)
            return JSON.response(.ok, writing: body, capacity: body.capacity)
        case .version(let platform, let policy, let status):
            return JSON.response(.ok, writing: ClientVersionBody(platform: platform, policy: policy, status: status), capacity: 128)
        }
    }
}

/// The contract's notice: `{"id","kind","title","body","url","createdAt"}`.
struct NoticeBody: JSONWritable, Equatable {
    let notice: Notice

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("id", self.notice.id)
        writer.member("kind", self.notice.kind.rawValue)
        writer.member("title", self.notice.title)
        writer.member("body", self.notice.body)
        writer.member("url", self.notice.url)
        writer.member("createdAt", self.notice.createdAt)
        writer.endObject()
    }
}

/// `{"platform","latest","minimum","status"}`.
struct ClientVersionBody: JSONWritable, Equatable {
    let platform: ClientPlatform
    let policy: ClientVersionPolicy
    let status: ClientVersionStatus

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("platform", self.platform.rawValue)
        writer.member("latest", self.policy.latest.description)
        writer.member("minimum", self.policy.minimum.description)
        writer.member("status", self.status.rawValue)
        writer.endObject()
    }
}
