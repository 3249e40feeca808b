import Foundation

/// A notice operators post for every client (`soom admin notice add`; `GET /v1/notices`).
public struct Notice: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case notice, maintenance, news
    }

    public static let maximumTitleLength = 100
    public static let maximumBodyLength = 2000
    public static let maximumURLLength = 2000

    public let id: UUID
    public let kind: Kind
    public let title: String
    public let body: String
    public let url: String?
    public let createdAt: Date

    public init(id: UUID, kind: Kind, title: String, body: String, url: String?, createdAt: Date) {
        self.id = id
        self.kind = kind
        self.title = title
        self.body = body
        self.url = url
        self.createdAt = createdAt
    }
}
