import Foundation

/// `{"items": [...], "nextCursor": "…" | null}` of any items that write themselves.
struct ListBody<Item: JSONWritable>: JSONWritable {
    let items: [Item]
    let nextCursor: String?

    /// Room for a typical page in one allocation.
    var capacity: Int { 64 + self.items.count * 320 }

    func write(to writer: inout JSONWriter) {
        ListJSON.write(self.items, nextCursor: self.nextCursor, to: &writer) { $0.write(to: &$1) }
    }
}

/// The contract's list shape, written by every list body.
enum ListJSON {
    /// The list shape around any elements, each written by `element` (no wrapper array needed).
    static func write<Elements: Sequence>(
        _ elements: Elements, nextCursor: String?, to writer: inout JSONWriter, element: (Elements.Element, inout JSONWriter) -> Void
    ) {
        writer.beginObject()
        writer.key("items")
        writer.beginArray()
        for item in elements { element(item, &writer) }
        writer.endArray()
        writer.member("nextCursor", nextCursor)
        writer.endObject()
    }
}
