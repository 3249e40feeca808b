import SoomDomain

/// `{"name","usageCount"}`: an item of the ranked, search and favourite lists.
struct TagUsageBody: Equatable {
    let name: String
    let usageCount: Int

    init(_ usage: TagUsage) {
        self.name = usage.name
        self.usageCount = usage.usageCount
    }

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("name")
        writer.string(self.name)
        writer.key("usageCount")
        writer.int(self.usageCount)
        writer.endObject()
    }
}

/// `{"items": [{"name","usageCount"}]}`: tag lists are short and never paged (no `nextCursor`).
/// Written with `JSONWriter`: search and the top ten are among the busiest routes.
struct TagListBody: JSONWritable, Equatable {
    let items: [TagUsageBody]

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("items")
        writer.beginArray()
        for item in self.items { item.write(to: &writer) }
        writer.endArray()
        writer.endObject()
    }
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
