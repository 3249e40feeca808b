import Foundation
import SoomDomain

/// Response bodies of the identity routes, shaped exactly as the contract's `Me`, session and friends.
enum IdentityResponses {
    /// `Me` = `{"id","nickname","profileImage","bio","createdAt","cardCount","followerCount","followingCount","restrictedUntil"}`;
    /// `profileImage` and `restrictedUntil` are present as `null` when empty.
    struct Me: JSONWritable, Equatable {
        let account: Account

        func write(to writer: inout JSONWriter) {
            let account = self.account
            writer.beginObject()
            writer.key("id")
            writer.uuid(account.id)
            writer.key("nickname")
            writer.string(account.nickname)
            writer.key("profileImage")
            if let image = account.profileImage { ImageBody(reference: image).write(to: &writer) } else { writer.null() }
            writer.key("bio")
            writer.string(account.bio)
            writer.key("createdAt")
            writer.timestamp(account.createdAt)
            writer.key("cardCount")
            writer.int(account.cardCount)
            writer.key("followerCount")
            writer.int(account.followerCount)
            writer.key("followingCount")
            writer.int(account.followingCount)
            writer.key("restrictedUntil")
            writer.timestamp(account.restrictedUntil)
            writer.endObject()
        }
    }

    /// `{"account": Me, "session": {"token","expiresAt"}}`.
    struct SignedIn: JSONWritable, Equatable {
        let signedIn: SignedInAccount

        init(_ signedIn: SignedInAccount) {
            self.signedIn = signedIn
        }

        func write(to writer: inout JSONWriter) {
            writer.beginObject()
            writer.key("account")
            Me(account: self.signedIn.account).write(to: &writer)
            writer.key("session")
            writer.beginObject()
            writer.key("token")
            writer.string(self.signedIn.session.token)
            writer.key("expiresAt")
            writer.timestamp(self.signedIn.session.expiresAt)
            writer.endObject()
            writer.endObject()
        }
    }

    /// `{"challengeId","nonce","expiresAt"}`.
    struct Challenge: JSONWritable, Equatable {
        let challenge: SoomDomain.Challenge

        init(_ challenge: SoomDomain.Challenge) {
            self.challenge = challenge
        }

        func write(to writer: inout JSONWriter) {
            writer.beginObject()
            writer.key("challengeId")
            writer.string(self.challenge.id)
            writer.key("nonce")
            writer.string(self.challenge.nonce)
            writer.key("expiresAt")
            writer.timestamp(self.challenge.expiresAt)
            writer.endObject()
        }
    }

    /// `{"code","expiresAt"}`.
    struct TransferCode: JSONWritable, Equatable {
        let code: String
        let expiresAt: Date

        func write(to writer: inout JSONWriter) {
            writer.beginObject()
            writer.key("code")
            writer.string(self.code)
            writer.key("expiresAt")
            writer.timestamp(self.expiresAt)
            writer.endObject()
        }
    }

    /// `{"nickname"}`.
    struct NicknameSuggestion: JSONWritable, Equatable {
        let nickname: String

        func write(to writer: inout JSONWriter) {
            writer.beginObject()
            writer.key("nickname")
            writer.string(self.nickname)
            writer.endObject()
        }
    }

    /// `{"available": bool, "reason"?}`: `reason` only when not available.
    struct NicknameValidation: JSONWritable, Equatable {
        let available: Bool
        let reason: String?

        func write(to writer: inout JSONWriter) {
            writer.beginObject()
            writer.key("available")
            writer.bool(self.available)
            if let reason = self.reason {
                writer.key("reason")
                writer.string(reason)
            }
            writer.endObject()
        }
    }
}
