import Foundation
import SoomDomain
import Synchronization

/// `IdentityRepository` in memory: each method runs under one lock, so each is atomic, like the
/// PostgreSQL implementation's transactions.
final class InMemoryIdentityRepository: IdentityRepository {
    struct StoredAccount {
        var account: Account
        var fingerprint: [UInt8]
        var publicKeyDER: [UInt8]
        var nicknameKey: String
    }

    struct Storage {
        /// Nonces of spent challenges.
        var spentNonces: Set<[UInt8]> = []
        var accounts: [UUID: StoredAccount] = [:]
        var sessions: [[UInt8]: (accountID: UUID, expiresAt: Date)] = [:]
        var transferCodes: [[UInt8]: (accountID: UUID, expiresAt: Date)] = [:]
        var withdrawals: [(fingerprint: [UInt8], reason: String, at: Date, restrictedUntil: Date?)] = []
        var uploads: [String: UUID] = [:]
        /// Makes the next registrations fail as if someone took the nickname first (a race).
        var nicknameRacesToLose = 0
    }

    let storage = Mutex(Storage())

    /// A fixed secret, as a deployment has one.
    static let secret = [UInt8](repeating: 0x5A, count: 32)

    func challengeSecret() async throws -> [UInt8] { Self.secret }

    /// Whether a challenge with this nonce was spent.
    func isSpent(_ challenge: Challenge) -> Bool {
        self.storage.withLock { $0.spentNonces.contains(challenge.nonceBytes) }
    }

    func register(_ registration: Registration, session: StoredSession, challenge: Challenge, now: Date) async throws -> RegistrationOutcome {
        self.storage.withLock { storage in
            guard !storage.spentNonces.contains(challenge.nonceBytes) else { return .challengeUnavailable }
            if storage.accounts.values.contains(where: { $0.fingerprint == registration.fingerprint }) { return .keyAlreadyRegistered }
            if storage.accounts.values.contains(where: { $0.nicknameKey == registration.nickname.key }) { return .nicknameTaken }
            if storage.nicknameRacesToLose > 0 {
                storage.nicknameRacesToLose -= 1
                return .nicknameTaken
            }
            storage.spentNonces.insert(challenge.nonceBytes)
            let account = Account(
                id: registration.id, nickname: registration.nickname.value, profileImage: registration.profileImage, bio: "",
                createdAt: registration.createdAt)
            storage.accounts[account.id] = StoredAccount(
                account: account, fingerprint: registration.fingerprint, publicKeyDER: registration.publicKeyDER,
                nicknameKey: registration.nickname.key)
            storage.sessions[session.tokenHash] = (account.id, session.expiresAt)
            return .registered(account)
        }
    }

    func signIn(fingerprint: [UInt8], session: StoredSession, challenge: Challenge, now: Date) async throws -> SignInOutcome {
        self.storage.withLock { storage in
            guard let stored = storage.accounts.values.first(where: { $0.fingerprint == fingerprint }) else { return .unknownKey }
            guard !storage.spentNonces.contains(challenge.nonceBytes) else { return .challengeUnavailable }
            storage.spentNonces.insert(challenge.nonceBytes)
            storage.sessions[session.tokenHash] = (stored.account.id, session.expiresAt)
            return .signedIn(stored.account)
        }
    }

    func transfer(codeHash: [UInt8], newKey: any DeviceKey, session: StoredSession, challenge: Challenge, now: Date) async throws -> TransferOutcome {
        self.storage.withLock { storage in
            guard !storage.spentNonces.contains(challenge.nonceBytes) else { return .challengeUnavailable }
            guard let code = storage.transferCodes[codeHash], code.expiresAt > now else { return .invalidCode }
            if storage.accounts.values.contains(where: { $0.fingerprint == newKey.fingerprint && $0.account.id != code.accountID }) {
                return .keyAlreadyRegistered
            }
            storage.spentNonces.insert(challenge.nonceBytes)
            storage.transferCodes = storage.transferCodes.filter { $0.value.accountID != code.accountID }
            storage.sessions = storage.sessions.filter { $0.value.accountID != code.accountID }
            storage.accounts[code.accountID]!.fingerprint = newKey.fingerprint
            storage.accounts[code.accountID]!.publicKeyDER = newKey.der
            storage.sessions[session.tokenHash] = (code.accountID, session.expiresAt)
            return .transferred(storage.accounts[code.accountID]!.account)
        }
    }

    func session(tokenHash: [UInt8], now: Date) async throws -> LiveSession? {
        self.storage.withLock { storage in
            guard let session = storage.sessions[tokenHash], session.expiresAt > now,
                let account = storage.accounts[session.accountID]?.account
            else { return nil }
            return LiveSession(account: account, expiresAt: session.expiresAt)
        }
    }

    func account(id: UUID) async throws -> Account? {
        self.storage.withLock { $0.accounts[id]?.account }
    }

    func purgeExpired(limit: Int) async throws -> Int {
        self.storage.withLock { storage in
            let now = Date()
            let sessions = storage.sessions.filter { $0.value.expiresAt < now }.keys.prefix(limit)
            let codes = storage.transferCodes.filter { $0.value.expiresAt < now }.keys.prefix(limit)
            for key in sessions { storage.sessions[key] = nil }
            for key in codes { storage.transferCodes[key] = nil }
            return sessions.count + codes.count
        }
    }

    func purgeWithdrawals(before cutoff: Date, limit: Int) async throws -> Int {
        self.storage.withLock { storage in
            let now = Date()
            let old = storage.withdrawals.indices.filter { index in
                storage.withdrawals[index].at < cutoff && (storage.withdrawals[index].restrictedUntil.map { $0 < now } ?? true)
            }.prefix(limit)
            for index in old.reversed() { storage.withdrawals.remove(at: index) }
            return old.count
        }
    }

    func deleteSession(tokenHash: [UInt8]) async throws {
        self.storage.withLock { $0.sessions[tokenHash] = nil }
    }

    func lastWithdrawal(fingerprint: [UInt8]) async throws -> Withdrawal? {
        self.storage.withLock { storage in
            let mine = storage.withdrawals.filter { $0.fingerprint == fingerprint }
            return mine.map(\.at).max().map { Withdrawal(withdrawnAt: $0, restrictedUntil: mine.compactMap(\.restrictedUntil).max()) }
        }
    }

    /// Restricts an account from posting until `until`, as reports or an operator would.
    func restrict(_ accountID: UUID, until: Date) {
        self.storage.withLock { $0.accounts[accountID]?.account.restrictedUntil = until }
    }

    func takenNicknameKeys(_ keys: [String]) async throws -> Set<String> {
        self.storage.withLock { storage in Set(keys.filter { key in storage.accounts.values.contains { $0.nicknameKey == key } }) }
    }

    func isUpload(_ imageID: String, ownedBy accountID: UUID) async throws -> Bool {
        self.storage.withLock { $0.uploads[imageID] == accountID }
    }

    func updateProfile(accountID: UUID, changes: ProfileChanges) async throws -> Account {
        try self.storage.withLock { storage throws(SoomError) in
            guard var stored = storage.accounts[accountID] else { throw SoomError.unauthorized }
            if let nickname = changes.nickname {
                if storage.accounts.values.contains(where: { $0.nicknameKey == nickname.key && $0.account.id != accountID }) {
                    throw SoomError.nicknameTaken
                }
                stored.account.nickname = nickname.value
                stored.nicknameKey = nickname.key
            }
            if let bio = changes.bio { stored.account.bio = bio }
            if let image = changes.profileImage { stored.account.profileImage = image }
            storage.accounts[accountID] = stored
            return stored.account
        }
    }

    func publicKey(accountID: UUID) async throws -> [UInt8]? {
        self.storage.withLock { $0.accounts[accountID]?.publicKeyDER }
    }

    func insertTransferCode(hash: [UInt8], accountID: UUID, expiresAt: Date, signature: AccountSignature) async throws -> SignedChangeOutcome {
        self.storage.withLock { storage in
            guard !storage.spentNonces.contains(signature.challenge.nonceBytes) else { return .challengeUnavailable }
            guard storage.accounts[accountID]?.fingerprint == signature.fingerprint else { return .keyChanged }
            storage.spentNonces.insert(signature.challenge.nonceBytes)
            storage.transferCodes = storage.transferCodes.filter { $0.value.accountID != accountID }
            storage.transferCodes[hash] = (accountID, expiresAt)
            return .done
        }
    }

    func withdraw(accountID: UUID, reason: String, now: Date, signature: AccountSignature) async throws -> SignedChangeOutcome {
        self.storage.withLock { storage in
            guard !storage.spentNonces.contains(signature.challenge.nonceBytes) else { return .challengeUnavailable }
            guard let stored = storage.accounts[accountID], stored.fingerprint == signature.fingerprint else { return .keyChanged }
            storage.spentNonces.insert(signature.challenge.nonceBytes)
            storage.accounts[accountID] = nil
            storage.withdrawals.append((stored.fingerprint, reason, now, stored.account.restrictedUntil.flatMap { $0 > now ? $0 : nil }))
            storage.sessions = storage.sessions.filter { $0.value.accountID != accountID }
            storage.transferCodes = storage.transferCodes.filter { $0.value.accountID != accountID }
            return .done
        }
    }
}
