import Foundation

/// Creates an account for a device that proves its key with a `register` signature.
///
/// Without a nickname the server picks an available one. A key withdrawn less than seven days
/// ago, or whose account withdrew while restricted, cannot register again yet (`Withdrawal`).
public struct RegisterAccount: Sendable {
    /// How long a withdrawn key waits before it may register again.
    public static let rejoinDelay: TimeInterval = 7 * 24 * 60 * 60

    let environment: IdentityEnvironment
    let suggestNickname: SuggestNickname
    let profileImages: ProfileImagePolicy

    public init(_ environment: IdentityEnvironment) {
        self.environment = environment
        self.suggestNickname = SuggestNickname(environment)
        self.profileImages = ProfileImagePolicy(environment)
    }

    public struct Input: Sendable, Equatable {
        public let proof: DeviceProof
        public let nickname: String?
        public let profileImage: ImageChoice?
        public let language: NicknameSuggester.Language

        public init(proof: DeviceProof, nickname: String?, profileImage: ImageChoice?, language: NicknameSuggester.Language = .korean) {
            self.proof = proof
            self.nickname = nickname
            self.profileImage = profileImage
            self.language = language
        }
    }

    public func callAsFunction(_ input: Input) async throws -> SignedInAccount {
        // Input rules first, so a malformed request never touches the challenge.
        let chosenNickname = try input.nickname.map { raw throws(SoomError) in
            try Nickname(validating: raw, refusing: self.environment.switches.refusedWords)
        }
        let (key, challenge) = try await input.proof.verify(for: .register, in: self.environment)
        let accountID = UUID()
        let profileImage = try await self.profileImages.resolve(input.profileImage, for: accountID)

        if let withdrawal = try await self.environment.repository.lastWithdrawal(fingerprint: key.fingerprint) {
            let rejoinAt = withdrawal.rejoinAvailableAt
            if self.environment.now() < rejoinAt { throw SoomError.rejoinNotAllowed(until: rejoinAt) }
        }

        // A suggested nickname can be taken between suggestion and insert: try a few more.
        for _ in 0..<5 {
            let now = self.environment.now().stamp
            let nickname: Nickname
            if let chosenNickname {
                nickname = chosenNickname
            } else {
                nickname = try await self.suggestNickname(language: input.language)
            }
            let (token, stored) = self.environment.makeSession(at: now)
            let registration = Registration(
                id: accountID, fingerprint: key.fingerprint, publicKeyDER: key.der, nickname: nickname,
                profileImage: profileImage, createdAt: now)
            switch try await self.environment.repository.register(registration, session: stored, challenge: challenge, now: now) {
            case .registered(let account): return SignedInAccount(account: account, session: token)
            case .challengeUnavailable: throw SoomError.invalidSignature("The challenge was already used or has expired.")
            case .keyAlreadyRegistered: throw SoomError.deviceAlreadyRegistered
            case .nicknameTaken where chosenNickname != nil: throw SoomError.nicknameTaken
            case .nicknameTaken: continue
            }
        }
        throw SoomError.nicknameTaken
    }
}
