import Foundation

/// What a client asks to post, validated: the contract's create body for cards and comment cards.
public struct CardDraft: Sendable, Equatable {
    public let content: CardContent
    public let font: CardFont
    public let background: ImageChoice
    public let tags: [Tag]
    public let isStory: Bool
    /// The cell of the location the client sent: the point itself is dropped here, at decoding,
    /// and never reaches storage, logs or another layer (see `GeoCell`).
    public let location: GeoCell?
    /// Top-level cards only (`PostCard` refuses one on a comment card).
    public let poll: PollDraft?

    /// Stories expire this long after creation.
    public static let storyLifetime: TimeInterval = 24 * 60 * 60

    /// When the card, posted at `postedAt`, expires: a story's end; nil for any other card.
    public func expiry(postedAt: Date) -> Date? {
        self.isStory ? postedAt.addingTimeInterval(Self.storyLifetime) : nil
    }

    /// - Throws: `422 validation_failed` naming the field for every broken rule.
    public init(
        content: String, font: String?, background: ImageChoice, tags: [String]?, story: Bool?, location: (latitude: Double, longitude: Double)?,
        poll: PollDraft? = nil
    ) throws(SoomError) {
        self.content = try CardContent(validating: content)
        guard let font = CardFont(rawValue: font ?? CardFont.default.rawValue) else {
            throw .validationFailed(field: "font", "font must be one of: \(CardFont.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        self.font = font
        if case .builtIn(let name) = background, DefaultBackground.named(name) == nil {
            throw .validationFailed(field: "background", "There is no built-in background named '\(name.prefix(64))'.")
        }
        // Upload IDs are UUIDs: anything else names no upload (and never reaches the database,
        // which would refuse, say, a NUL character with an error of its own).
        if case .upload(let id) = background, UUID(uuidString: id) == nil {
            throw .validationFailed(field: "background", "No image with that id was uploaded by this account.")
        }
        self.background = background
        self.tags = try Tag.normalise(tags ?? [])
        self.isStory = story ?? false
        self.location = try location.map { location throws(SoomError) in
            GeoCell(containing: try GeoLocation(latitude: location.latitude, longitude: location.longitude))
        }
        self.poll = poll
    }

    /// A canonical text of the request: the same draft always gives the same text, so a reused
    /// `Idempotency-Key` with a different body can be told apart.
    public func canonicalForm(parentID: UUID?) -> String {
        let background: String =
            switch self.background {
            case .builtIn(let name): "default:\(name)"
            case .upload(let id): "upload:\(id.lowercased())"
            }
        let location = self.location?.key ?? "-"
        return [
            parentID?.uuidString.lowercased() ?? "-", self.font.rawValue, background, self.isStory ? "story" : "card", location,
            self.tags.map(\.name).joined(separator: "#"), self.poll?.canonicalForm ?? "-", self.content.text,
        ].joined(separator: "\u{1F}")
    }
}
