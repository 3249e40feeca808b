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
        writer.member("name", self.name)
        writer.member("usageCount", self.usageCount)
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
struct TagDetailBody: JSONWritable, Equatable {
    let detail: TagDetail

    init(_ detail: TagDetail) {
        self.detail = detail
    }

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("name", self.detail.name)
        writer.member("usageCount", self.detail.usageCount)
        writer.member("isFavorite", self.detail.isFavorite)
        writer.endObject()
    }
}

/// `{"favorite": bool}`.
struct FavoriteBody: JSONWritable, Equatable {
    let favorite: Bool

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("favorite", self.favorite)
        writer.endObject()
    }
}
