/// A picture a profile or card shows: one of the built-in backgrounds, or a photo the account uploaded.
public enum ImageReference: Sendable, Equatable, Hashable {
    case builtIn(name: String)
    case upload(id: String)
}
