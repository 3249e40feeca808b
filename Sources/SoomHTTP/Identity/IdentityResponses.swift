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
            UserSummaryBody.writeIdentity(of: account.summary, to: &writer)
            writer.member("bio", account.bio)
            writer.member("createdAt", account.createdAt)
            writer.member("cardCount", account.cardCount)
            writer.member("followerCount", account.followerCount)
            writer.member("followingCount", account.followingCount)
            writer.member("restrictedUntil", account.restrictedUntil)
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
            writer.member("account", Me(account: self.signedIn.account))
            writer.key("session")
            writer.beginObject()
            writer.member("token", self.signedIn.session.token)
            writer.member("expiresAt", self.signedIn.session.expiresAt)
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
            writer.member("challengeId", self.challenge.id)
            writer.member("nonce", self.challenge.nonce)
            writer.member("expiresAt", self.challenge.expiresAt)
            writer.endObject()
        }
    }

    /// `{"code","expiresAt"}`.
    struct TransferCode: JSONWritable, Equatable {
        let code: String
        let expiresAt: Date

        func write(to writer: inout JSONWriter) {
            writer.beginObject()
            writer.member("code", self.code)
            writer.member("expiresAt", self.expiresAt)
            writer.endObject()
        }
    }

    /// `{"nickname"}`.
    struct NicknameSuggestion: JSONWritable, Equatable {
        let nickname: String

        func write(to writer: inout JSONWriter) {
            writer.beginObject()
            writer.member("nickname", self.nickname)
            writer.endObject()
        }
    }

    /// `{"available": bool, "reason"?}`: `reason` only when not available.
    struct NicknameValidation: JSONWritable, Equatable {
        let available: Bool
        let reason: String?

        func write(to writer: inout JSONWriter) {
            writer.beginObject()
            writer.member("available", self.available)
            if let reason = self.reason {
                writer.member("reason", reason)
            }
            writer.endObject()
        }
    }
}
