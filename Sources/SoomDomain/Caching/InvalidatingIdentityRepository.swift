import Foundation

/// What a change of identity invalidates, in one place (as `InvalidatingCardRepository` for
/// cards): a session ended, an account moved to a new key or withdrawn, a new name, picture or bio
/// drop the account's kept sessions (`SessionCache`); a withdrawal (its cards go) and a new name or
/// picture (cards show them) drop every kept card, page and chunk. Other instances hear of it from
/// the database (migration 0009).
struct InvalidatingIdentityRepository: IdentityRepository {
    let base: any IdentityRepository
    let sessions: SessionCache
    let feedPages: FeedPageCache

    func transfer(codeHash: [UInt8], newKey: any DeviceKey, session: StoredSession, challenge: Challenge, now: Date) async throws -> TransferOutcome {
        let outcome = try await self.base.transfer(codeHash: codeHash, newKey: newKey, session: session, challenge: challenge, now: now)
        if case .transferred(let account) = outcome { self.sessions.invalidate(account: account.id) }
        return outcome
    }

    func deleteSession(tokenHash: [UInt8]) async throws {
        try await self.base.deleteSession(tokenHash: tokenHash)
        self.sessions.invalidate(tokenHash: tokenHash)
    }

    func updateProfile(accountID: UUID, changes: ProfileChanges) async throws -> Account {
        let account = try await self.base.updateProfile(accountID: accountID, changes: changes)
        self.sessions.invalidate(account: accountID)
        if changes.nickname != nil || changes.profileImage != nil { self.feedPages.invalidateAll() }
        return account
    }

    func withdraw(accountID: UUID, reason: String, now: Date, signature: AccountSignature) async throws -> SignedChangeOutcome {
        let outcome = try await self.base.withdraw(accountID: accountID, reason: reason, now: now, signature: signature)
        if outcome == .done {
            self.sessions.invalidate(account: accountID)
            self.feedPages.invalidateAll()
        }
        return outcome
    }

    func challengeSecret() async throws -> [UInt8] { try await self.base.challengeSecret() }
    func register(_ registration: Registration, session: StoredSession, challenge: Challenge, now: Date) async throws -> RegistrationOutcome {
        try await self.base.register(registration, session: session, challenge: challenge, now: now)
    }
    func signIn(fingerprint: [UInt8], session: StoredSession, challenge: Challenge, now: Date) async throws -> SignInOutcome {
        try await self.base.signIn(fingerprint: fingerprint, session: session, challenge: challenge, now: now)
    }
    func session(tokenHash: [UInt8], now: Date) async throws -> LiveSession? { try await self.base.session(tokenHash: tokenHash, now: now) }
    func account(id: UUID) async throws -> Account? { try await self.base.account(id: id) }
    func lastWithdrawal(fingerprint: [UInt8]) async throws -> Withdrawal? { try await self.base.lastWithdrawal(fingerprint: fingerprint) }
    func takenNicknameKeys(_ keys: [String]) async throws -> Set<String> { try await self.base.takenNicknameKeys(keys) }
    func isUpload(_ imageID: String, ownedBy accountID: UUID) async throws -> Bool { try await self.base.isUpload(imageID, ownedBy: accountID) }
    func publicKey(accountID: UUID) async throws -> [UInt8]? { try await self.base.publicKey(accountID: accountID) }
    func insertTransferCode(hash: [UInt8], accountID: UUID, expiresAt: Date, signature: AccountSignature) async throws -> SignedChangeOutcome {
        try await self.base.insertTransferCode(hash: hash, accountID: accountID, expiresAt: expiresAt, signature: signature)
    }
    func purgeExpired(limit: Int) async throws -> Int { try await self.base.purgeExpired(limit: limit) }
    func purgeWithdrawals(before cutoff: Date, limit: Int) async throws -> Int { try await self.base.purgeWithdrawals(before: cutoff, limit: limit) }
}
