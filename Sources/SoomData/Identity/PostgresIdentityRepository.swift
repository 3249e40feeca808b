import Foundation
import PostgresNIO
import SoomCrypto
import SoomDomain

/// `IdentityRepository` on PostgreSQL. Each method is one statement or one transaction; proofs
/// (challenges, transfer codes) are consumed in the same transaction as the change they authorise.
public struct PostgresIdentityRepository: IdentityRepository {
    let database: Database
    private let secrets = SecretCache()

    public init(database: Database) {
        self.database = database
    }

    /// Thrown inside a transaction to roll it back: the challenge was spent before or meanwhile.
    private struct ChallengeUnavailable: Error {}
    /// Thrown inside a transaction to roll it back: the transfer code is unknown, used or expired.
    private struct TransferCodeUnavailable: Error {}
    /// Thrown inside a transaction to roll it back: the signing key is no longer the account's.
    private struct KeyChanged: Error {}

    public func challengeSecret() async throws -> [UInt8] {
        if let secret = self.secrets.challenge { return secret }
        // Whoever comes first makes it; everyone reads the one that won.
        let candidate = SecureRandom.bytes(32)
        try await self.database.execute(
            "INSERT INTO server_secrets (name, value) VALUES ('challenge-seal', \(Data(candidate))) ON CONFLICT (name) DO NOTHING")
        let rows = try await self.database.rows("SELECT value FROM server_secrets WHERE name = 'challenge-seal'")
        let secret = [UInt8](try RowCells.decode(rows[0], Data.self))
        self.secrets.challenge = secret
        return secret
    }

    public func register(_ registration: Registration, session: StoredSession, challenge: Challenge, now: Date) async throws -> RegistrationOutcome {
        let image = AccountRow.columns(of: registration.profileImage)
        do {
            return try await self.database.transaction { connection in
                try await Self.spend(challenge, on: connection, logger: self.database.logger)
                let rows = try await connection.query(
                    """
                    INSERT INTO accounts AS a (id, key_fingerprint, public_key, nickname, nickname_key, nickname_key_version,
                                          profile_image_kind, profile_image_ref, created_at)
                    VALUES (\(registration.id), \(Data(registration.fingerprint)), \(Data(registration.publicKeyDER)),
                            \(registration.nickname.value), \(registration.nickname.key), \(NicknameRekey.currentVersion),
                            \(image.kind), \(image.reference), \(registration.createdAt))
                    RETURNING \(unescaped: AccountRow.select)
                    """, logger: self.database.logger
                ).collect()
                try await Self.insertSession(session, accountID: registration.id, on: connection, logger: self.database.logger)
                return .registered(try AccountRow.decode(rows[0]))
            }
        } catch is ChallengeUnavailable {
            return .challengeUnavailable
        } catch let error as PSQLError where error.uniqueViolationConstraint == "accounts_key_fingerprint_unique" {
            return .keyAlreadyRegistered
        } catch let error as PSQLError where error.uniqueViolationConstraint == "accounts_nickname_key_unique" {
            return .nicknameTaken
        }
    }

    public func signIn(fingerprint: [UInt8], session: StoredSession, challenge: Challenge, now: Date) async throws -> SignInOutcome {
        // One prepared statement: the challenge is spent only when the account exists, and the
        // session is created only when this very statement spent it.
        guard let row = try await self.database.first(SignInStatement(fingerprint: fingerprint, challenge: challenge, session: session)) else {
            return .unknownKey
        }
        guard row.opened else { return .challengeUnavailable }
        return .signedIn(row.account)
    }

    public func transfer(
        codeHash: [UInt8], newKey: any DeviceKey, session: StoredSession, challenge: Challenge, now: Date
    ) async throws -> TransferOutcome {
        let logger = self.database.logger
        do {
            return try await self.database.transaction { connection in
                try await Self.spend(challenge, on: connection, logger: logger)
                let codes = try await connection.query(
                    "DELETE FROM transfer_codes WHERE code_hash = \(Data(codeHash)) AND expires_at > \(now) RETURNING account_id", logger: logger
                ).collect()
                guard let accountID = try codes.first.map({ try RowCells.decode($0, UUID.self) }) else { throw TransferCodeUnavailable() }
                try await connection.query("DELETE FROM sessions WHERE account_id = \(accountID)", logger: logger)
                try await connection.query("DELETE FROM transfer_codes WHERE account_id = \(accountID)", logger: logger)
                let rows = try await connection.query(
                    """
                    UPDATE accounts a SET public_key = \(Data(newKey.der)), key_fingerprint = \(Data(newKey.fingerprint))
                    WHERE id = \(accountID) RETURNING \(unescaped: AccountRow.select)
                    """, logger: logger
                ).collect()
                try await Self.insertSession(session, accountID: accountID, on: connection, logger: logger)
                return .transferred(try AccountRow.decode(rows[0]))
            }
        } catch is TransferCodeUnavailable {
            return .invalidCode
        } catch is ChallengeUnavailable {
            return .challengeUnavailable
        } catch let error as PSQLError where error.uniqueViolationConstraint == "accounts_key_fingerprint_unique" {
            return .keyAlreadyRegistered
        }
    }

    public func session(tokenHash: [UInt8], now: Date) async throws -> LiveSession? {
        try await self.database.first(SessionAccountStatement(tokenHash: Data(tokenHash), now: now))
    }

    public func account(id: UUID) async throws -> Account? {
        let rows = try await self.database.rows("SELECT \(unescaped: AccountRow.select) FROM accounts a WHERE a.id = \(id)")
        return try rows.first.map { try AccountRow.decode($0) }
    }

    public func deleteSession(tokenHash: [UInt8]) async throws {
        try await self.database.execute("DELETE FROM sessions WHERE token_hash = \(Data(tokenHash))")
    }

    public func lastWithdrawal(fingerprint: [UInt8]) async throws -> Withdrawal? {
        let rows = try await self.database.rows(
            "SELECT max(withdrawn_at), max(restricted_until) FROM withdrawals WHERE key_fingerprint = \(Data(fingerprint))")
        let (withdrawnAt, restrictedUntil) = try RowCells.decode(rows[0], Date?.self, Date?.self)
        return withdrawnAt.map { Withdrawal(withdrawnAt: $0, restrictedUntil: restrictedUntil) }
    }

    public func takenNicknameKeys(_ keys: [String]) async throws -> Set<String> {
        let rows = try await self.database.rows("SELECT nickname_key FROM accounts WHERE nickname_key = ANY(\(keys))")
        return Set(try rows.map { try RowCells.decode($0, String.self) })
    }

    public func isUpload(_ imageID: String, ownedBy accountID: UUID) async throws -> Bool {
        guard let id = UUID(uuidString: imageID) else { return false }
        let rows = try await self.database.rows("SELECT 1 FROM images WHERE id = \(id) AND owner_id = \(accountID)")
        return !rows.isEmpty
    }

    public func updateProfile(accountID: UUID, changes: ProfileChanges) async throws -> Account {
        let replacesImage = changes.profileImage != nil
        let image = AccountRow.columns(of: changes.profileImage ?? nil)
        do {
            let rows = try await self.database.rows(
                """
                UPDATE accounts a SET
                    nickname = COALESCE(\(changes.nickname?.value), nickname),
                    nickname_key = COALESCE(\(changes.nickname?.key), nickname_key),
                    nickname_key_version = COALESCE(\(changes.nickname.map { _ in NicknameRekey.currentVersion }), nickname_key_version),
                    bio = COALESCE(\(changes.bio), bio),
                    profile_image_kind = CASE WHEN \(replacesImage) THEN \(image.kind) ELSE profile_image_kind END,
                    profile_image_ref = CASE WHEN \(replacesImage) THEN \(image.reference) ELSE profile_image_ref END
                WHERE id = \(accountID)
                RETURNING \(unescaped: AccountRow.select)
                """)
            guard let row = rows.first else { throw SoomError.unauthorized }
            return try AccountRow.decode(row)
        } catch let error as PSQLError where error.uniqueViolationConstraint == "accounts_nickname_key_unique" {
            throw SoomError.nicknameTaken
        }
    }

    public func publicKey(accountID: UUID) async throws -> [UInt8]? {
        let rows = try await self.database.rows("SELECT public_key FROM accounts WHERE id = \(accountID)")
        return try rows.first.map { [UInt8](try RowCells.decode($0, Data.self)) }
    }

    public func insertTransferCode(
        hash: [UInt8], accountID: UUID, expiresAt: Date, signature: AccountSignature
    ) async throws -> SignedChangeOutcome {
        try await self.signedChange {
            try await self.database.transaction { connection in
                try await Self.spend(signature.challenge, on: connection, logger: self.database.logger)
                // Locks the account against a transfer to another key until this commits.
                let current = try await connection.query(
                    "SELECT 1 FROM accounts WHERE id = \(accountID) AND key_fingerprint = \(Data(signature.fingerprint)) FOR UPDATE",
                    logger: self.database.logger
                ).collect()
                guard !current.isEmpty else { throw KeyChanged() }
                try await connection.query("DELETE FROM transfer_codes WHERE account_id = \(accountID)", logger: self.database.logger)
                try await connection.query(
                    "INSERT INTO transfer_codes (code_hash, account_id, expires_at) VALUES (\(Data(hash)), \(accountID), \(expiresAt))",
                    logger: self.database.logger)
            }
        }
    }

    public func withdraw(accountID: UUID, reason: String, now: Date, signature: AccountSignature) async throws -> SignedChangeOutcome {
        try await self.signedChange {
            try await self.withdraw(accountID: accountID, reason: reason, now: now, signature: signature)
        }
    }

    /// Runs a transaction that spends a challenge and checks the signing key; its refusals become outcomes.
    private func signedChange(_ change: () async throws -> Void) async throws -> SignedChangeOutcome {
        do {
            try await change()
            return .done
        } catch is ChallengeUnavailable {
            return .challengeUnavailable
        } catch is KeyChanged {
            return .keyChanged
        }
    }

    private func withdraw(accountID: UUID, reason: String, now: Date, signature: AccountSignature) async throws {
        try await self.database.transaction { connection in
            try await Self.spend(signature.challenge, on: connection, logger: self.database.logger)
            // The account and everyone it follows or is followed by, locked in id order (the order of
            // follows and blocks), whose counters lose this account's follows below. Locked, the
            // account cannot move to another key before this commits.
            let locked = try await connection.query(
                """
                SELECT id, key_fingerprint FROM accounts WHERE id = \(accountID)
                    OR id IN (SELECT followee_id FROM follows WHERE follower_id = \(accountID))
                    OR id IN (SELECT follower_id FROM follows WHERE followee_id = \(accountID))
                ORDER BY id FOR UPDATE
                """, logger: self.database.logger
            ).collect()
            let signer = Data(signature.fingerprint)
            guard try locked.contains(where: { row in try RowCells.decode(row, UUID.self, Data.self) == (accountID, signer) }) else {
                throw KeyChanged()
            }
            let tagged = try await TagUsageSQL.beginWithdrawal(of: accountID, on: connection, logger: self.database.logger)
            try await connection.query(
                """
                UPDATE accounts a SET follower_count = a.follower_count - 1
                FROM follows f WHERE f.follower_id = \(accountID) AND f.followee_id = a.id
                """, logger: self.database.logger)
            try await connection.query(
                """
                UPDATE accounts a SET following_count = a.following_count - 1
                FROM follows f WHERE f.followee_id = \(accountID) AND f.follower_id = a.id
                """, logger: self.database.logger)
            try await connection.query(
                """
                INSERT INTO withdrawals (key_fingerprint, reason, withdrawn_at, restricted_until)
                SELECT key_fingerprint, \(reason), \(now), CASE WHEN restricted_until > \(now) THEN restricted_until END
                FROM accounts WHERE id = \(accountID)
                """, logger: self.database.logger)
            // Counters on other people's cards that this account touched are corrected first.
            try await connection.query(
                """
                UPDATE cards c SET like_count = c.like_count - 1
                FROM likes l WHERE l.account_id = \(accountID) AND l.card_id = c.id AND c.author_id <> \(accountID)
                """, logger: self.database.logger)
            try await connection.query(
                """
                UPDATE cards p SET comment_count = p.comment_count - d.n
                FROM (SELECT parent_id, count(*) AS n FROM cards
                      WHERE author_id = \(accountID) AND parent_id IS NOT NULL AND hidden_at IS NULL GROUP BY parent_id) d
                WHERE p.id = d.parent_id AND p.author_id <> \(accountID)
                """, logger: self.database.logger)
            // Its ballots leave the polls' counts. Voting locks the voter's account first (`cast_ballot`),
            // so no ballot of this account changes until this commits.
            try await connection.query(
                """
                UPDATE cards c SET
                    poll_votes = ARRAY(
                        SELECT u.v - ((b.choices >> (u.i - 1)::int) & 1) FROM unnest(c.poll_votes) WITH ORDINALITY AS u (v, i) ORDER BY u.i),
                    poll_voters = c.poll_voters - 1
                FROM poll_ballots b WHERE b.account_id = \(accountID) AND b.card_id = c.id AND c.author_id <> \(accountID)
                """, logger: self.database.logger)
            // The cards it opened and the profiles it visited count it no more (its pairs go with
            // the account). Locked above, the account's row holds off any batch of views naming it
            // (`PostgresViews` locks its readers first) until this commits.
            try await connection.query(
                """
                UPDATE cards c SET view_count = c.view_count - 1
                FROM card_views v WHERE v.viewer_id = \(accountID) AND v.card_id = c.id
                """, logger: self.database.logger)
            try await connection.query(
                """
                UPDATE accounts a SET visit_count = a.visit_count - 1,
                    visits_today = GREATEST(a.visits_today - CASE WHEN p.last_day = a.visits_day THEN 1 ELSE 0 END, 0)
                FROM profile_visits p WHERE p.visitor_id = \(accountID) AND p.owner_id = a.id
                """, logger: self.database.logger)
            // Its following inbox (no foreign key: see migration 0013). Every account it follows is
            // locked above, so no post by one of them can still add a row.
            try await connection.query("DELETE FROM following_inbox WHERE reader_id = \(accountID)", logger: self.database.logger)
            // Sessions, transfer codes, uploads, cards, likes, follows, blocks and notifications go with
            // the account (ON DELETE CASCADE);
            // comment cards of others on its cards stay, shown with parentDeleted.
            try await connection.query("DELETE FROM accounts WHERE id = \(accountID)", logger: self.database.logger)
            try await TagUsageSQL.release(cardIDs: tagged, on: connection, logger: self.database.logger)
        }
    }

    /// Forgets what can no longer matter: spent challenges past their expiry (an expired challenge is
    /// refused before it reaches the database), expired sessions and expired transfer codes. At most
    /// `limit` rows of each per call, skipping rows another instance is deleting; returns how many went.
    public func purgeExpired(limit: Int) async throws -> Int {
        let rows = try await self.database.rows(
            """
            WITH challenges AS (
                DELETE FROM spent_challenges WHERE nonce IN (
                    SELECT nonce FROM spent_challenges WHERE expires_at < now() LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                RETURNING 1),
            sessions AS (
                DELETE FROM sessions WHERE token_hash IN (
                    SELECT token_hash FROM sessions WHERE expires_at < now() LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                RETURNING 1),
            transfer_codes AS (
                DELETE FROM transfer_codes WHERE code_hash IN (
                    SELECT code_hash FROM transfer_codes WHERE expires_at < now() LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                RETURNING 1)
            SELECT ((SELECT count(*) FROM challenges) + (SELECT count(*) FROM sessions) + (SELECT count(*) FROM transfer_codes))::int
            """)
        return try RowCells.decode(rows[0], Int.self)
    }

    /// Deletes up to `limit` withdrawal records made before `cutoff` (the contract keeps them 30
    /// days; the 7-day rejoin rule needs one week) whose restriction, if any, has ended. Returns how many.
    public func purgeWithdrawals(before cutoff: Date, limit: Int) async throws -> Int {
        try await self.database.purge(.withdrawals, before: cutoff, limit: limit)
    }

    /// Records the challenge's nonce as spent; a nonce spent before (or by a parallel request that
    /// commits first) rolls the transaction back.
    private static func spend(_ challenge: Challenge, on connection: PostgresConnection, logger: Logger) async throws {
        let spent = try await connection.query(
            """
            INSERT INTO spent_challenges (nonce, expires_at) VALUES (\(Data(challenge.nonceBytes)), \(challenge.expiresAt))
            ON CONFLICT (nonce) DO NOTHING RETURNING 1
            """, logger: logger
        ).collect()
        if spent.isEmpty { throw ChallengeUnavailable() }
    }

    private static func insertSession(_ session: StoredSession, accountID: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "INSERT INTO sessions (token_hash, account_id, expires_at) VALUES (\(Data(session.tokenHash)), \(accountID), \(session.expiresAt))",
            logger: logger)
    }
}
