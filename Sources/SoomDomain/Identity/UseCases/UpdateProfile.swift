/// Changes the caller's nickname, profile picture or bio.
public struct UpdateProfile: Sendable {
    let environment: IdentityEnvironment
    let profileImages: ProfileImagePolicy

    public init(_ environment: IdentityEnvironment) {
        self.environment = environment
        self.profileImages = ProfileImagePolicy(environment)
    }

    /// The fields as sent; `nil` means "not sent". `profileImage: .some(nil)` removes the picture.
    public struct Input: Sendable, Equatable {
        public let nickname: String?
        public let profileImage: ImageChoice??
        public let bio: String?

        public init(nickname: String? = nil, profileImage: ImageChoice?? = nil, bio: String? = nil) {
            self.nickname = nickname
            self.profileImage = profileImage
            self.bio = bio
        }
    }

    public func callAsFunction(_ caller: Authenticate.Caller, _ input: Input) async throws -> Account {
        var changes = ProfileChanges()
        changes.nickname = try input.nickname.map { raw throws(SoomError) in
            try Nickname(validating: raw, refusing: self.environment.switches.refusedWords)
        }
        changes.bio = try input.bio.map { raw throws(SoomError) in try ProfileText.bio(raw) }
        if let choice = input.profileImage {
            changes.profileImage = .some(try await self.profileImages.resolve(choice, for: caller.account.id))
        }
        if changes == ProfileChanges() { return try await ShowAccount(self.environment)(caller) }
        return try await self.environment.repository.updateProfile(accountID: caller.account.id, changes: changes)
    }
}
