import Foundation

/// Storage for devices, accounts and sessions. Every method is atomic: it happens fully or not at all.
///
/// Methods that consume a challenge or a transfer code do so in the same transaction as the change
/// they authorise, so that of many parallel requests with one proof exactly one succeeds, and a
/// refused request leaves the challenge usable.
public protocol IdentityRepository: Sendable {
    /// The deployment's secret for sealing challenge IDs (`ChallengeSeal`): made once, shared by
    /// every server instance, kept in memory after the first call.
    func challengeSecret() async throws -> [UInt8]

    /// Spends the challenge (`.challengeUnavailable` when it was spent before) and creates the account with a session.
    /// The caller has checked the challenge's seal and expiry.
    func register(_ registration: Registration, session: StoredSession, challenge: Challenge, now: Date) async throws -> RegistrationOutcome
    /// Spends the challenge and opens a session for the account with this key; an unknown key leaves the challenge unspent.
    func signIn(fingerprint: [UInt8], session: StoredSession, challenge: Challenge, now: Date) async throws -> SignInOutcome
    /// Spends the challenge and the transfer code, moves the account to the new key,
    /// revokes all its sessions and opens a new one.
    func transfer(
        codeHash: [UInt8], newKey: any DeviceKey, session: StoredSession, challenge: Challenge, now: Date
    ) async throws -> TransferOutcome

    /// The live session a token hash belongs to, with its account.
    func session(tokenHash: [UInt8], now: Date) async throws -> LiveSession?
    /// The account with this id, as it is now.
    func account(id: UUID) async throws -> Account?
    func deleteSession(tokenHash: [UInt8]) async throws
    /// What is kept of this key's last withdrawal, if it ever withdrew.
    func lastWithdrawal(fingerprint: [UInt8]) async throws -> Withdrawal?
    /// Which of these nickname keys are taken.
    func takenNicknameKeys(_ keys: [String]) async throws -> Set<String>
    /// Whether `imageID` names an image that `accountID` uploaded.
    func isUpload(_ imageID: String, ownedBy accountID: UUID) async throws -> Bool
    /// Applies the changes; nil fields stay as they are.
    /// - Throws: `SoomError.nicknameTaken`.
    func updateProfile(accountID: UUID, changes: ProfileChanges) async throws -> Account
    /// The account's current public key (SubjectPublicKeyInfo DER), nil when there is no such account.
    func publicKey(accountID: UUID) async throws -> [UInt8]?
    /// Spends the signature's challenge and replaces the account's transfer codes with this one,
    /// only while the signing key is still the account's.
    func insertTransferCode(hash: [UInt8], accountID: UUID, expiresAt: Date, signature: AccountSignature) async throws -> SignedChangeOutcome
    /// Spends the signature's challenge and deletes the account and everything it owns, only while
    /// the signing key is still the account's; keeps only the reason, the time and the fingerprint.
    func withdraw(accountID: UUID, reason: String, now: Date, signature: AccountSignature) async throws -> SignedChangeOutcome
    /// Deletes expired spent challenges, sessions and transfer codes, at most `limit` rows of each
    /// a call, skipping rows another instance is deleting; how many went.
    func purgeExpired(limit: Int) async throws -> Int
    /// Deletes up to `limit` withdrawal records made before `cutoff`; how many went.
    func purgeWithdrawals(before cutoff: Date, limit: Int) async throws -> Int
}

/// How a change signed by the account's key ended. Refused changes leave everything as it was,
/// the challenge unspent included.
public enum SignedChangeOutcome: Sendable, Equatable {
    case done
    case challengeUnavailable
    /// The account moved to another key (or is gone) since the signature was checked.
    case keyChanged
}

/// A new account to create.
public struct Registration: Sendable, Equatable {
    public let id: UUID
    public let fingerprint: [UInt8]
    public let publicKeyDER: [UInt8]
    public let nickname: Nickname
    public let profileImage: ImageReference?
    public let createdAt: Date

    public init(
        id: UUID, fingerprint: [UInt8], publicKeyDER: [UInt8], nickname: Nickname, profileImage: ImageReference?, createdAt: Date
    ) {
        self.id = id
        self.fingerprint = fingerprint
        self.publicKeyDER = publicKeyDER
        self.nickname = nickname
        self.profileImage = profileImage
        self.createdAt = createdAt
    }
}

/// Profile fields to change; `nil` leaves a field as it is.
public struct ProfileChanges: Sendable, Equatable {
    public var nickname: Nickname?
    /// `.some(nil)` removes the picture.
    public var profileImage: ImageReference??
    public var bio: String?

    public init(nickname: Nickname? = nil, profileImage: ImageReference?? = nil, bio: String? = nil) {
        self.nickname = nickname
        self.profileImage = profileImage
        self.bio = bio
    }
}

public enum RegistrationOutcome: Sendable, Equatable {
    case registered(Account)
    /// Used meanwhile, or expired.
    case challengeUnavailable
    case keyAlreadyRegistered
    case nicknameTaken
}

public enum SignInOutcome: Sendable, Equatable {
    case signedIn(Account)
    case challengeUnavailable
    case unknownKey
}

public enum TransferOutcome: Sendable, Equatable {
    case transferred(Account)
    case challengeUnavailable
    case invalidCode
    /// The new key already belongs to another account.
    case keyAlreadyRegistered
}
