import Foundation
import SoomDomain

/// The create body of cards and comment cards:
/// `{"content","font"?,"background": {"default": name} | {"imageId": id},"tags"?,"story"?,"location"?: {"latitude","longitude"},
/// "poll"?: {"options","multiple"?,"closesAt"?}}`.
struct CreateCardRequest: Decodable {
    let content: String
    let font: String?
    let background: IdentityRequests.ProfileImage
    let tags: [String]?
    let story: Bool?
    let location: Location?
    let poll: PollRequest?

    struct Location: Decodable {
        let latitude: Double
        let longitude: Double
    }

    enum CodingKeys: String, CodingKey { case content, font, background, tags, story, location, poll }

    /// Optional members may be absent, never `null`.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.content = try container.decode(String.self, forKey: .content)
        self.font = try container.decodeUnlessNull(String.self, forKey: .font)
        self.background = try container.decode(IdentityRequests.ProfileImage.self, forKey: .background)
        self.tags = try container.decodeUnlessNull([String].self, forKey: .tags)
        self.story = try container.decodeUnlessNull(Bool.self, forKey: .story)
        self.location = try container.decodeUnlessNull(Location.self, forKey: .location)
        self.poll = try container.decodeUnlessNull(PollRequest.self, forKey: .poll)
    }

    /// Checks every rule (`422` naming the field).
    func draft() throws(SoomError) -> CardDraft {
        try CardDraft(
            content: self.content, font: self.font, background: self.background.choice, tags: self.tags, story: self.story,
            location: self.location.map { ($0.latitude, $0.longitude) }, poll: self.poll?.draft())
    }
}

/// A new card's poll: `{"options": [string],"multiple"?: bool,"closesAt"?: time}`.
struct PollRequest: Decodable {
    let options: [String]
    let multiple: Bool?
    let closesAt: String?

    enum CodingKeys: String, CodingKey { case options, multiple, closesAt }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.options = try container.decode([String].self, forKey: .options)
        self.multiple = try container.decodeUnlessNull(Bool.self, forKey: .multiple)
        self.closesAt = try container.decodeUnlessNull(String.self, forKey: .closesAt)
    }

    func draft() throws(SoomError) -> PollDraft {
        let closesAt = try self.closesAt.map { text throws(SoomError) in
            guard let date = Date(rfc3339: text) else {
                throw SoomError.validationFailed(field: "poll", "closesAt must be an RFC 3339 time, such as 2026-12-01T03:00:00Z.")
            }
            return date
        }
        return try PollDraft(options: self.options, multiple: self.multiple, closesAt: closesAt)
    }
}

/// The body of `PUT /v1/cards/{id}/poll/vote`: `{"options": [index]}`.
struct VoteRequest: Decodable {
    let options: [Int]

    func ballot() throws(SoomError) -> Ballot {
        try Ballot(choosing: self.options)
    }
}

/// The body of `POST /v1/cards/{id}/reports`: `{"reason"}`.
struct ReportCardRequest: Decodable {
    let reason: String

    func validated() throws(SoomError) -> ReportReason {
        try ReportReason(validating: self.reason)
    }
}
