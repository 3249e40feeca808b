import Foundation
import SoomDomain

/// The contract's `Card`, every member present (`null` where empty).
///
/// Written with `JSONWriter`: cards are the bulk of every feed response.
struct CardBody: JSONWritable, Equatable {
    let card: Card

    func write(to writer: inout JSONWriter) {
        Self.writeCommon(self.card, to: &writer)
        Self.writeViewerPoll(self.card, to: &writer)
        Self.writeDistance(self.card, to: &writer)
        Self.writeViewerFlags(self.card, to: &writer)
    }

    /// The opening brace and every member that is the same for all readers, the object left open
    /// (a nearby card's distance is each reader's own), and last the poll's shared members with
    /// the poll object left open too (`writeViewerPoll` adds the reader's ballot and closes it).
    /// Members come in this order so that a kept card's shared part can be written once for all
    /// its readers; JSON objects are unordered.
    static func writeCommon(_ card: Card, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("id", card.id)
        writer.member("content", card.content)
        writer.member("font", card.font.rawValue)
        writer.member("background", ImageBody(reference: card.background))
        writer.key("tags")
        writer.beginArray()
        for tag in card.tags { writer.string(tag) }
        writer.endArray()
        writer.member("author", UserSummaryBody(user: card.author))
        writer.member("parentId", card.parentID)
        writer.member("parentDeleted", card.parentDeleted)
        writer.member("createdAt", card.createdAt)
        writer.member("expiresAt", card.expiresAt)
        writer.member("likeCount", card.likeCount)
        writer.member("commentCount", card.commentCount)
        writer.member("viewCount", card.viewCount)
        writer.key("poll")
        if let poll = card.poll {
            writer.beginObject()
            PollBody.writeShared(poll, to: &writer)
        } else {
            writer.null()
        }
    }

    /// The reader's ballot (`myVotes`) and the poll's closing brace; nothing for a card without a poll.
    static func writeViewerPoll(_ card: Card, to writer: inout JSONWriter) {
        guard let poll = card.poll else { return }
        PollBody.writeMyVotes(poll, to: &writer)
        writer.endObject()
    }

    /// `distanceMeters`.
    static func writeDistance(_ card: Card, to writer: inout JSONWriter) {
        // A band in whole metres (100, 200, …, 900, 1000, 2000, …): written as an integer.
        writer.key("distanceMeters")
        if let distance = card.distanceMeters, distance.isFinite, let metres = Int(exactly: distance.rounded(.up)) {
            writer.int(metres)
        } else {
            writer.null()
        }
    }

    /// The reader's own members (only the latest feed's first page pins), and the closing brace.
    static func writeViewerFlags(_ card: Card, to writer: inout JSONWriter) {
        writer.member("likedByMe", card.likedByMe)
        writer.member("commentedByMe", card.commentedByMe)
        writer.member("isMine", card.isMine)
        writer.member("pinned", card.pinned)
        writer.endObject()
    }
}

/// The contract's `Poll` = `{"options": [{"text","voteCount"}],"multiple","voterCount","myVotes": [index],"closesAt","closed"}`.
struct PollBody: JSONWritable, Equatable {
    let poll: Poll

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        Self.writeShared(self.poll, to: &writer)
        Self.writeMyVotes(self.poll, to: &writer)
        writer.endObject()
    }

    /// The members every reader sees alike, inside an object the caller opened.
    static func writeShared(_ poll: Poll, to writer: inout JSONWriter) {
        writer.key("options")
        writer.beginArray()
        for option in poll.options {
            writer.beginObject()
            writer.member("text", option.text)
            writer.member("voteCount", option.voteCount)
            writer.endObject()
        }
        writer.endArray()
        writer.member("multiple", poll.multiple)
        writer.member("voterCount", poll.voterCount)
        writer.member("closesAt", poll.closesAt)
        writer.member("closed", poll.closed)
    }

    /// `myVotes`: the reader's own.
    static func writeMyVotes(_ poll: Poll, to writer: inout JSONWriter) {
        writer.key("myVotes")
        writer.beginArray()
        for index in poll.myVotes.indexes { writer.int(index) }
        writer.endArray()
    }
}

/// The contract's `UserSummary` = `{"id","nickname","profileImage","isOperator"}`.
struct UserSummaryBody: JSONWritable, Equatable {
    let user: UserSummary

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        Self.writeMembers(of: self.user, to: &writer)
        writer.endObject()
    }

    /// `id`, `nickname`, `profileImage` and `isOperator`, inside an object the caller opened (a `Profile` extends them).
    static func writeMembers(of user: UserSummary, to writer: inout JSONWriter) {
        Self.writeIdentity(of: user, to: &writer)
        writer.member("isOperator", user.isOperator)
    }

    /// `id`, `nickname` and `profileImage` (`Me` has these, and no `isOperator`).
    static func writeIdentity(of user: UserSummary, to writer: inout JSONWriter) {
        writer.member("id", user.id)
        writer.member("nickname", user.nickname)
        writer.member("profileImage", user.profileImage.map(ImageBody.init(reference:)))
    }
}

/// An image as cards and profiles show it: `{"kind": "default", "name", "url"}` or
/// `{"kind": "upload", "imageId", "url"}` (the same shape as `IdentityResponses.Image`).
struct ImageBody: JSONWritable, Equatable {
    let reference: ImageReference

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("kind")
        switch self.reference {
        case .builtIn(let name):
            writer.string("default")
            writer.member("name", name)
            writer.member("url", "/v1/images/defaults/\(name)")
        case .upload(let id):
            writer.string("upload")
            writer.member("imageId", id)
            writer.member("url", "/v1/images/\(id)")
        }
        writer.endObject()
    }
}

/// A list of cards: `{"items": [...], "nextCursor": "…" | null}`.
struct CardListBody: JSONWritable, Equatable {
    let cards: [Card]
    let nextCursor: String?
    /// The memos of the kept cards or nearby chunk entries these cards were completed from: each
    /// card's shared members are written once, kept there, and copied for every reader.
    var shared: SharedMemos? = nil

    /// Room for a typical page in one allocation (a card is about 600 bytes).
    var capacity: Int { 64 + self.cards.count * 768 }

    func write(to writer: inout JSONWriter) {
        switch self.shared {
        case .cards(let memos) where memos.count == self.cards.count:
            ListJSON.write(self.cards.indices, nextCursor: self.nextCursor, to: &writer) { index, writer in
                let card = self.cards[index]
                guard let memo = memos[index] as? JSONMemo<SharedCardJSON> else { return CardBody(card: card).write(to: &writer) }
                // A card the reader liked carries their count, maybe newer than the shared one: it
                // may use the memo but not fill it.
                let written = card.likedByMe ? memo.peek() : memo.value { SharedCardJSON(card) }
                // The memo belongs to the entry this card came from.
                guard let written, written.id == card.id, written.likeCount == card.likeCount, written.hasPoll == (card.poll != nil) else {
                    return CardBody(card: card).write(to: &writer)
                }
                writer.openObject(written.members)
                CardBody.writeViewerPoll(card, to: &writer)
                CardBody.writeDistance(card, to: &writer)
                CardBody.writeViewerFlags(card, to: &writer)
            }
        case .cards, nil:
            ListJSON.write(self.cards, nextCursor: self.nextCursor, to: &writer) { CardBody(card: $0).write(to: &$1) }
        }
    }
}

/// A kept card's or nearby entry's shared members as `CardBody.writeCommon` writes them, kept in its `JSONMemo`.
struct SharedCardJSON: Sendable {
    let id: UUID
    let likeCount: Int
    /// The members end inside an open poll object (`CardBody.writeCommon`).
    let hasPoll: Bool
    let members: [UInt8]

    init(_ card: Card) {
        self.id = card.id
        self.likeCount = card.likeCount
        self.hasPoll = card.poll != nil
        var writer = JSONWriter(capacity: 768)
        CardBody.writeCommon(card, to: &writer)
        self.members = writer.bytes
    }
}

/// `{"liked","likeCount"}`.
struct LikeBody: JSONWritable, Equatable {
    let like: LikeState

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("liked", self.like.liked)
        writer.member("likeCount", self.like.likeCount)
        writer.endObject()
    }
}
