import SoomDomain

/// `{"name","usageCount"}`: an item of the ranked, search and favourite lists.
struct TagUsageBody: Encodable, Equatable {
    let name: String
    let usageCount: Int

    init(_ usage: TagUsage) {
        self.name = usage.name
        self.usageCount = usage.usageCount
    }
}

/// `{"items": [{"name","usageCount"}]}`: tag lists are short and never paged (no `nextCursor`).
struct TagListBody: Encodable, Equatable {
    let items: [TagUsageBody]
}

/// `{"name","usageCount","isFavorite"}`.
struct TagDetailBody: Encodable, Equatable {
    let name: String
    let usageCount: Int
    let isFavorite: Bool

    init(_ detail: TagDetail) {
        self.name = detail.name
        self.usageCount = detail.usageCount
        self.isFavorite = detail.isFavorite
    }
}

/// `{"favorite": bool}`.
struct FavoriteBody: Encodable, Equatable {
    let favorite: Bool
}
