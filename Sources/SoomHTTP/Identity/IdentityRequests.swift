import SoomDomain

/// Request bodies of the identity routes, decoded exactly as the contract names their fields.
/// Unknown fields are ignored; a missing required field or a wrong type is `400 invalid_request`.
enum IdentityRequests {
    /// `{"publicKey","algorithm","challengeId","signature"}`: `POST /v1/sessions`.
    struct Proof: Decodable {
        let publicKey: String
        let algorithm: String
        let challengeId: String
        let signature: String

        var deviceProof: DeviceProof {
            DeviceProof(publicKey: self.publicKey, algorithm: self.algorithm, challengeID: self.challengeId, signature: self.signature)
        }
    }

    /// `POST /v1/accounts`: a proof plus an optional nickname and picture.
    struct Register: Decodable {
        let proof: Proof
        let nickname: String?
        let profileImage: ProfileImage?

        enum CodingKeys: String, CodingKey { case nickname, profileImage }

        init(from decoder: any Decoder) throws {
            self.proof = try Proof(from: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.nickname = try container.decodeUnlessNull(String.self, forKey: .nickname)
            self.profileImage = try container.decodeUnlessNull(ProfileImage.self, forKey: .profileImage)
        }
    }

    /// `POST /v1/accounts/transfer`: the transfer code plus the new key's proof.
    struct Transfer: Decodable {
        let code: String
        let proof: Proof

        enum CodingKeys: String, CodingKey { case code }

        init(from decoder: any Decoder) throws {
            self.code = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .code)
            self.proof = try Proof(from: decoder)
        }
    }

    /// `PATCH /v1/me`: each field optional; `"profileImage": null` removes the picture.
    struct UpdateMe: Decodable {
        let nickname: String?
        /// nil: not sent; `.some(nil)`: sent as null.
        let profileImage: ProfileImage??
        let bio: String?

        enum CodingKeys: String, CodingKey { case nickname, profileImage, bio }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.nickname = try container.decodeUnlessNull(String.self, forKey: .nickname)
            self.bio = try container.decodeUnlessNull(String.self, forKey: .bio)
            if !container.contains(.profileImage) {
                self.profileImage = nil
            } else if try container.decodeNil(forKey: .profileImage) {
                self.profileImage = .some(nil)
            } else {
                self.profileImage = .some(try container.decode(ProfileImage.self, forKey: .profileImage))
            }
        }

        var input: UpdateProfile.Input {
            UpdateProfile.Input(nickname: self.nickname, profileImage: self.profileImage.map { $0.map(\.choice) }, bio: self.bio)
        }
    }

    /// `{"algorithm","challengeId","signature"}`, signed by the account's current key:
    /// `POST /v1/me/transfer-codes` (purpose `transfer-code`).
    struct AccountSignature: Decodable {
        let algorithm: String
        let challengeId: String
        let signature: String

        var accountProof: AccountProof {
            AccountProof(algorithm: self.algorithm, challengeID: self.challengeId, signature: self.signature)
        }
    }

    /// `DELETE /v1/me`: `{"reason"?}` plus the account's signature (purpose `withdraw`); no reason is an empty one.
    struct Withdraw: Decodable {
        let reason: String?
        let proof: AccountSignature

        enum CodingKeys: String, CodingKey { case reason }

        init(from decoder: any Decoder) throws {
            self.reason = try decoder.container(keyedBy: CodingKeys.self).decodeUnlessNull(String.self, forKey: .reason)
            self.proof = try AccountSignature(from: decoder)
        }
    }

    /// `POST /v1/nicknames/validation`.
    struct ValidateNickname: Decodable {
        let nickname: String
    }

    /// `{"default": name}` or `{"imageId": id}`: exactly one of the two (profile pictures and card backgrounds).
    struct ProfileImage: Decodable {
        let choice: ImageChoice

        enum CodingKeys: String, CodingKey { case `default`, imageId }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let name = try container.decodeUnlessNull(String.self, forKey: .default)
            let imageID = try container.decodeUnlessNull(String.self, forKey: .imageId)
            switch (name, imageID) {
            case (let name?, nil): self.choice = .builtIn(name)
            case (nil, let id?): self.choice = .upload(id)
            default:
                // The field is named by where it stands: profileImage, background.
                let field = decoder.codingPath.last?.stringValue ?? "image"
                throw SoomError.invalidRequest("\(field) must be {\"default\": name} or {\"imageId\": id}.", field: field)
            }
        }
    }
}
