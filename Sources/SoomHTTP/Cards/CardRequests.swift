import SoomDomain

/// The create body of cards and comment cards:
/// `{"content","font"?,"background": {"default": name} | {"imageId": id},"tags"?,"story"?,"location"?: {"latitude","longitude"}}`.
struct CreateCardRequest: Decodable {
    let content: String
    let font: String?
    let background: IdentityRequests.ProfileImage
    let tags: [String]?
    let story: Bool?
    let location: Location?

    struct Location: Decodable {
        let latitude: Double
        let longitude: Double
    }

    enum CodingKeys: String, CodingKey { case content, font, background, tags, story, location }

    /// Optional members may be absent, never `null`.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.content = try container.decode(String.self, forKey: .content)
        self.font = try container.decodeUnlessNull(String.self, forKey: .font)
        self.background = try container.decode(IdentityRequests.ProfileImage.self, forKey: .background)
        self.tags = try container.decodeUnlessNull([String].self, forKey: .tags)
        self.story = try container.decodeUnlessNull(Bool.self, forKey: .story)
        self.location = try container.decodeUnlessNull(Location.self, forKey: .location)
    }

    /// Checks every rule (`422` naming the field).
    func draft() throws(SoomError) -> CardDraft {
        try CardDraft(
            content: self.content, font: self.font, background: self.background.choice, tags: self.tags, story: self.story,
            location: self.location.map { ($0.latitude, $0.longitude) })
    }
}

/// The body of `POST /v1/cards/{id}/reports`: `{"reason"}`.
struct ReportCardRequest: Decodable {
    let reason: String

    func validated() throws(SoomError) -> ReportReason {
        try ReportReason(validating: self.reason)
    }
}
