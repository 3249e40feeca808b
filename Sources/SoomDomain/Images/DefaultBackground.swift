/// A built-in background picture, identified by a stable name.
public struct DefaultBackground: Sendable, Equatable {
    public let name: String
    public let category: String

    /// The built-in set, in display order.
    public static let all: [DefaultBackground] = [
        .init(name: "sky-dawn", category: "sky"), .init(name: "sky-noon", category: "sky"), .init(name: "sky-night", category: "sky"),
        .init(name: "sea-calm", category: "sea"), .init(name: "sea-wave", category: "sea"), .init(name: "sea-deep", category: "sea"),
        .init(name: "forest-moss", category: "forest"), .init(name: "forest-pine", category: "forest"),
        .init(name: "forest-mist", category: "forest"),
        .init(name: "paper-cream", category: "paper"), .init(name: "paper-grid", category: "paper"),
        .init(name: "paper-dots", category: "paper"),
    ]

    static let byName: [String: DefaultBackground] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    public static func named(_ name: String) -> DefaultBackground? { Self.byName[name] }
}
