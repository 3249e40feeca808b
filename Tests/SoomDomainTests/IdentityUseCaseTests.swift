import Foundation
import SoomDomain
import Testing

@Suite("Identity use cases over in-memory storage")
struct IdentityUseCaseTests {
    @Test("register: opens a session whose token authenticates, and stores only its hash")
    func register() async throws {
        let world = World()
        let signedIn = try await world.register("phone", nickname: "별")
        #expect(signedIn.account.nickname == "별")
        #expect(signedIn.session.expiresAt == world.clock.now.stamp.addingTimeInterval(24 * 3600))
        let caller = try await world.caller(signedIn)
        #expect(caller.account.id == signedIn.account.id)
        let storedHashes = world.repository.storage.withLock { Array($0.sessions.keys) }
        #expect(storedHashes == [caller.tokenHash])
        #expect(!storedHashes.contains(Array(signedIn.session.token.utf8)))
    }

    @Test("register: a suggested nickname taken meanwhile is replaced by another suggestion; a chosen one is not")
    func suggestionRace() async throws {
        let world = World()
        world.repository.storage.withLock { $0.nicknameRacesToLose = 3 }
        let signedIn = try await world.register("one")
        #expect(Nickname.check(signedIn.account.nickname).map(\.value) == .success(signedIn.account.nickname))
        #expect(world.repository.storage.withLock { $0.nicknameRacesToLose } == 0)
        world.repository.storage.withLock { $0.nicknameRacesToLose = 1 }
        await #expect(throws: SoomError.nicknameTaken) { try await world.register("two", nickname: "Chosen") }
    }

    @Test("register: the same key twice is device_already_registered; a taken nickname is nickname_taken")
    func conflicts() async throws {
        let world = World()
        try await world.register("phone", nickname: "Moon")
        await #expect(throws: SoomError.deviceAlreadyRegistered) { try await world.register("phone") }
        await #expect(throws: SoomError.nicknameTaken) { try await world.register("tablet", nickname: "MOON") }
    }

    @Test("register: a key withdrawn less than 7 days ago waits until exactly 7 days have passed")
    func rejoin() async throws {
        let world = World()
        let signedIn = try await world.register("phone")
        try await Withdraw(world.environment)(
            try await world.caller(signedIn), reason: "bye", proof: try await world.accountProof("phone", .withdraw))
        let withdrawnAt = world.clock.now
        world.clock.advance(by: 6 * 24 * 3600)
        await #expect(throws: SoomError.rejoinNotAllowed(until: withdrawnAt.addingTimeInterval(7 * 24 * 3600))) {
            try await world.register("phone")
        }
        world.clock.advance(by: 24 * 3600)
        #expect(try await world.register("phone").account.nickname.isEmpty == false)
    }

    @Test("register: a key withdrawn while restricted waits for the later of seven days and the restriction's end")
    func rejoinAfterRestriction() async throws {
        let world = World()
        let signedIn = try await world.register("phone")
        let restrictionEnd = world.clock.now.addingTimeInterval(20 * 24 * 3600)
        world.repository.restrict(signedIn.account.id, until: restrictionEnd)
        try await Withdraw(world.environment)(
            try await world.caller(signedIn), reason: "bye", proof: try await world.accountProof("phone", .withdraw))
        world.clock.advance(by: 8 * 24 * 3600)
        await #expect(throws: SoomError.rejoinNotAllowed(until: restrictionEnd)) { try await world.register("phone") }
        world.clock.advance(by: 12 * 24 * 3600)
        #expect(try await world.register("phone").account.restrictedUntil == nil)
        // A restriction that ended before the withdrawal leaves only the seven days.
        let withdrawal = Withdrawal(withdrawnAt: world.clock.now, restrictedUntil: world.clock.now.addingTimeInterval(-60))
        #expect(withdrawal.rejoinAvailableAt == world.clock.now.addingTimeInterval(7 * 24 * 3600))
    }

    @Test("nicknames with a refused word are not_allowed when checked, registered or changed; the list applies as it changes")
    func refusedNicknames() async throws {
        let world = World()
        world.switches.update(OperatorSwitches.Settings(refusedWords: RefusedWords(["바보"])))
        #expect(try await CheckNickname(world.environment)("바 보야") == .notAllowed)
        #expect(try await CheckNickname(world.environment)("바다") == nil)
        // Compatibility jamo compose under NFKC: `ㅂㅏ보` is `바보`.
        for nickname in ["바.보", "ㅂㅏ보"] {
            await #expect {
                try await world.register("phone", nickname: nickname)
            } throws: { error in
                (error as? SoomError)?.field == "nickname"
            }
        }
        let signedIn = try await world.register("phone", nickname: "바다")
        await #expect {
            try await UpdateProfile(world.environment)(try await world.caller(signedIn), .init(nickname: "바보바다"))
        } throws: { error in
            (error as? SoomError)?.field == "nickname"
        }
        world.switches.update(OperatorSwitches.Settings())
        #expect(try await UpdateProfile(world.environment)(try await world.caller(signedIn), .init(nickname: "바보바다")).nickname == "바보바다")
    }

    @Test("sign in: unknown key is account_not_found; expired or reused challenges are invalid_signature")
    func signIn() async throws {
        let world = World()
        await #expect(throws: SoomError.accountNotFound) { try await SignIn(world.environment)(try await world.proof("nobody", .login)) }
        try await world.register("phone")
        let proof = try await world.proof("phone", .login)
        _ = try await SignIn(world.environment)(proof)
        await #expect(throws: SoomError.self) { try await SignIn(world.environment)(proof) }
        let late = try await world.proof("phone", .login)
        world.clock.advance(by: 5 * 60)
        await #expect {
            try await SignIn(world.environment)(late)
        } throws: { error in
            (error as? SoomError)?.code == "invalid_signature"
        }
    }

    @Test("proofs: a signature for another purpose, a bad algorithm, or a bad key are refused before storage changes")
    func proofs() async throws {
        let world = World()
        try await world.register("phone")
        let registerProof = try await world.proof("phone", .register)
        await #expect {
            try await SignIn(world.environment)(registerProof)
        } throws: { ($0 as? SoomError)?.code == "invalid_signature" }
        let badAlgorithm = DeviceProof(publicKey: "fake-key:phone", algorithm: "md5", challengeID: registerProof.challengeID, signature: "")
        await #expect {
            try await SignIn(world.environment)(badAlgorithm)
        } throws: { ($0 as? SoomError)?.field == "algorithm" }
        let badKey = DeviceProof(publicKey: "-----BEGIN", algorithm: "rsa-pss-sha256", challengeID: registerProof.challengeID, signature: "")
        await #expect {
            try await SignIn(world.environment)(badKey)
        } throws: { ($0 as? SoomError)?.code == "invalid_public_key" }
        // The challenge survived all three refusals.
        let challenge = try #require(ChallengeSeal(secret: InMemoryIdentityRepository.secret, crypto: world.crypto).open(registerProof.challengeID))
        #expect(!world.repository.isSpent(challenge))
    }

    @Test("challenges: an ID opens only with the secret that sealed it, unaltered, and keeps nonce and expiry")
    func challengeSeal() throws {
        let crypto = FakeIdentityCrypto()
        let seal = ChallengeSeal(secret: [UInt8](repeating: 1, count: 32), crypto: crypto)
        let nonce = (0..<32).map { UInt8($0) }
        let expiry = Date(timeIntervalSince1970: 1_800_000_300.1239)
        let challenge = seal.seal(nonce: nonce, expiresAt: expiry)
        #expect(challenge.nonce == Base64URL.encode(nonce))
        #expect(challenge.expiresAt == Date(timeIntervalSince1970: 1_800_000_300.123))
        #expect(seal.open(challenge.id) == challenge)
        #expect(ChallengeSeal(secret: [UInt8](repeating: 2, count: 32), crypto: crypto).open(challenge.id) == nil)
        var bytes = try #require(Base64URL.decode(challenge.id))
        for index in bytes.indices {
            bytes[index] ^= 0x80
            #expect(seal.open(Base64URL.encode(bytes)) == nil, "byte \(index) altered")
            bytes[index] ^= 0x80
        }
        for garbage in [
            "", "x", challenge.id + "A", String(challenge.id.dropLast()), "'; DROP TABLE accounts; --", String(repeating: "A", count: 4096),
            UUID().uuidString,
        ] {
            #expect(seal.open(garbage) == nil)
        }
    }

    @Test("sign out: the token stops working; other sessions keep working")
    func signOut() async throws {
        let world = World()
        let first = try await world.register("phone")
        let second = try await SignIn(world.environment)(try await world.proof("phone", .login))
        try await SignOut(world.environment)(try await world.caller(first))
        await #expect(throws: SoomError.unauthorized) { try await world.caller(first) }
        #expect(try await world.caller(second).account.id == first.account.id)
    }

    @Test("transfer: the account moves to the new key, every old session ends, the code is single use")
    func transfer() async throws {
        let world = World()
        let old = try await world.register("old-phone", nickname: "이사")
        let issued = try await IssueTransferCode(world.environment)(
            try await world.caller(old), proof: try await world.accountProof("old-phone", .transferCode))
        #expect(issued.expiresAt == world.clock.now.addingTimeInterval(600))
        let moved = try await TransferAccount(world.environment)(code: issued.code, proof: try await world.proof("new-phone", .transfer))
        #expect(moved.account.id == old.account.id)
        await #expect(throws: SoomError.unauthorized) { try await world.caller(old) }
        await #expect(throws: SoomError.accountNotFound) { try await SignIn(world.environment)(try await world.proof("old-phone", .login)) }
        _ = try await SignIn(world.environment)(try await world.proof("new-phone", .login))
        await #expect(throws: SoomError.invalidTransferCode) {
            try await TransferAccount(world.environment)(code: issued.code, proof: try await world.proof("third", .transfer))
        }
    }

    @Test("transfer: an expired code is invalid_transfer_code")
    func expiredCode() async throws {
        let world = World()
        let old = try await world.register("old")
        let issued = try await IssueTransferCode(world.environment)(
            try await world.caller(old), proof: try await world.accountProof("old", .transferCode))
        world.clock.advance(by: 601)
        await #expect(throws: SoomError.invalidTransferCode) {
            try await TransferAccount(world.environment)(code: issued.code, proof: try await world.proof("new", .transfer))
        }
    }

    @Test("a session token alone neither issues a transfer code nor withdraws: another key, purpose or a reused challenge is invalid_signature")
    func stolenToken() async throws {
        let world = World()
        let owner = try await world.register("owner")
        let caller = try await world.caller(owner)
        let issue = IssueTransferCode(world.environment)
        let withdraw = Withdraw(world.environment)
        func refused(_ work: () async throws -> Void) async {
            await #expect { try await work() } throws: { ($0 as? SoomError)?.code == "invalid_signature" }
        }
        // The thief's own key, a login proof, and the owner's proof for the other purpose.
        await refused { _ = try await issue(caller, proof: try await world.accountProof("thief", .transferCode)) }
        await refused { _ = try await issue(caller, proof: try await world.accountProof("owner", .login)) }
        await refused { try await withdraw(caller, reason: "", proof: try await world.accountProof("thief", .withdraw)) }
        await refused { try await withdraw(caller, reason: "", proof: try await world.accountProof("owner", .transferCode)) }
        await #expect { _ = try await issue(caller, proof: AccountProof(algorithm: "md5", challengeID: "x", signature: "")) } throws: {
            ($0 as? SoomError)?.field == "algorithm"
        }
        #expect(world.repository.storage.withLock { $0.transferCodes.isEmpty && $0.accounts.count == 1 })
        // The owner's proof works once.
        let proof = try await world.accountProof("owner", .transferCode)
        _ = try await issue(caller, proof: proof)
        await refused { _ = try await issue(caller, proof: proof) }
        // After a move to a new key, the old key's signature no longer withdraws the account.
        let issued = try await issue(caller, proof: try await world.accountProof("owner", .transferCode))
        let moved = try await TransferAccount(world.environment)(code: issued.code, proof: try await world.proof("new", .transfer))
        let newCaller = try await world.caller(moved)
        await refused { try await withdraw(newCaller, reason: "", proof: try await world.accountProof("owner", .withdraw)) }
        try await withdraw(newCaller, reason: "", proof: try await world.accountProof("new", .withdraw))
        #expect(world.repository.storage.withLock { $0.accounts.isEmpty })
    }

    @Test("update profile: only sent fields change; an empty change asks storage nothing")
    func updateProfile() async throws {
        let world = World()
        let signedIn = try await world.register("phone", nickname: "before")
        let caller = try await world.caller(signedIn)
        let updated = try await UpdateProfile(world.environment)(caller, .init(profileImage: .some(.builtIn("sky-dawn")), bio: "hello"))
        #expect(updated.nickname == "before" && updated.bio == "hello" && updated.profileImage == .builtIn(name: "sky-dawn"))
        let cleared = try await UpdateProfile(world.environment)(try await world.caller(signedIn), .init(profileImage: .some(nil)))
        #expect(cleared.profileImage == nil && cleared.bio == "hello")
        await #expect {
            try await UpdateProfile(world.environment)(caller, .init(profileImage: .some(.upload("someone-elses"))))
        } throws: { ($0 as? SoomError)?.field == "profileImage" }
        world.repository.storage.withLock { $0.uploads["mine"] = signedIn.account.id }
        let withUpload = try await UpdateProfile(world.environment)(caller, .init(profileImage: .some(.upload("mine"))))
        #expect(withUpload.profileImage == .upload(id: "mine"))
    }

    @Test("withdraw: keeps only the reason, the time and the fingerprint")
    func withdraw() async throws {
        let world = World()
        let signedIn = try await world.register("phone")
        try await Withdraw(world.environment)(
            try await world.caller(signedIn), reason: "이유", proof: try await world.accountProof("phone", .withdraw))
        let storage = world.repository.storage.withLock { $0 }
        #expect(storage.accounts.isEmpty && storage.sessions.isEmpty && storage.transferCodes.isEmpty)
        #expect(storage.withdrawals.map(\.reason) == ["이유"])
        #expect(storage.withdrawals.map(\.fingerprint) == [FakeIdentityCrypto.Key(name: "phone").fingerprint])
    }

    @Test("nickname check: reasons in order, then availability")
    func checkNickname() async throws {
        let world = World()
        try await world.register("phone", nickname: "Taken")
        let check = CheckNickname(world.environment)
        #expect(try await check("taken") == .taken)
        #expect(try await check("free") == nil)
        #expect(try await check("") == .empty)
        #expect(try await check("관리자") == .reserved)
    }
}
