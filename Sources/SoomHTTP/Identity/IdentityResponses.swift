import Foundation
import SoomDomain

/// Response bodies of the identity routes, shaped exactly as the contract's `Me`, session and friends.
enum IdentityResponses {
    /// `Me` = `{"id","nickname","profileImage","bio","createdAt","cardCount","followerCount","followingCount","restrictedUntil"}`;
    /// `profileImage` and `restrictedUntil` are present as `null` when empty.
    struct Me: Encodable, Equatable {
        let account: Account

        enum CodingKeys: String, CodingKey {
            case id, nickname, profileImage, bio, createdAt, cardCount, followerCount, followingCount, restrictedUntil
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.account.id.uuidString.lowercased(), forKey: .id)
            try container.encode(self.account.nickname, forKey: .nickname)
            try container.encode(self.account.profileImage.map(Image.init), forKey: .profileImage)
            try container.encode(self.account.bio, forKey: .bio)
            try container.encode(self.account.createdAt, forKey: .createdAt)
            try container.encode(self.account.cardCount, forKey: .cardCount)
            try container.encode(self.account.followerCount, forKey: .followerCount)
            try container.encode(self.account.followingCount, forKey: .followingCount)
            try container.encode(self.account.restrictedUntil, forKey: .restrictedUntil)
        }
    }

    /// An image as cards and profiles show it: `{"kind":"default","name","url"}` or `{"kind":"upload","imageId","url"}`.
    struct Image: Encodable, Equatable {
        let reference: ImageReference

        enum CodingKeys: String, CodingKey { case kind, name, imageId, url }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self.reference {
            case .builtIn(let name):
                try container.encode("default", forKey: .kind)
                try container.encode(name, forKey: .name)
                try container.encode("/v1/images/defaults/\(name)", forKey: .url)
            case .upload(let id):
                try container.encode("upload", forKey: .kind)
                try container.encode(id, forKey: .imageId)
                try container.encode("/v1/images/\(id)", forKey: .url)
            }
        }
    }

    /// `{"account": Me, "session": {"token","expiresAt"}}`.
    struct SignedIn: Encodable, Equatable {
        let account: Me
        let session: Session

        init(_ signedIn: SignedInAccount) {
            self.account = Me(account: signedIn.account)
            self.session = Session(token: signedIn.session.token, expiresAt: signedIn.session.expiresAt)
        }

        struct Session: Encodable, Equatable {
            let token: String
            let expiresAt: Date
        }
    }

    /// `{"challengeId","nonce","expiresAt"}`.
    struct Challenge: Encodable, Equatable {
        let challengeId: String
        let nonce: String
        let expiresAt: Date

        init(_ challenge: SoomDomain.Challenge) {
            self.challengeId = challenge.id
            self.nonce = challenge.nonce
            self.expiresAt = challenge.expiresAt
        }
    }

    /// `{"code","expiresAt"}`.
    struct TransferCode: Encodable, Equatable {
        let code: String
        let expiresAt: Date
    }

    /// `{"nickname"}`.
    struct NicknameSuggestion: Encodable, Equatable {
        let nickname: String
    }

    /// `{"available": bool, "reason"?}`: `reason` only when not available.
    struct NicknameValidation: Encodable, Equatable {
        let available: Bool
        let reason: String?
    }
}
