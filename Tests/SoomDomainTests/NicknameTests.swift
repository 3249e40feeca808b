import SoomDomain
import Testing

@Suite("Nickname rules")
struct NicknameTests {
    @Test(
        "valid nicknames are trimmed and kept as written",
        arguments: [
            ("  고요한 고래  ", "고요한 고래"), ("Moon", "Moon"), ("a_b.c-d", "a_b.c-d"), ("여덟글자닉네임임", "여덟글자닉네임임"), ("Ünïcødé", "Ünïcødé"),
            ("숨1", "숨1"),
        ])
    func valid(raw: String, expected: String) throws {
        #expect(try Nickname(validating: raw).value == expected)
    }

    @Test(
        "each rule has its reason",
        arguments: [
            ("", Nickname.Problem.empty), ("   ", .empty), ("\n\t", .empty), ("아홉글자닉네임이다", .tooLong), ("123456789", .tooLong),
            ("😀", .invalidCharacters), ("a/b", .invalidCharacters), ("tab\there", .invalidCharacters), ("<script>", .invalidCharacters),
            ("nul\u{0}", .invalidCharacters), ("admin", .reserved), ("ADMIN", .reserved), ("ad m.in", .reserved), ("운영자", .reserved),
            ("관리자", .reserved), ("soom", .reserved), ("숨", .reserved), ("operator", .reserved),
        ])
    func problems(raw: String, problem: Nickname.Problem) {
        #expect(Nickname.check(raw) == .failure(problem))
    }

    @Test("length counts what people see: decomposed Hangul and combining accents are one character each")
    func graphemes() throws {
        let decomposed = "\u{1100}\u{1161}\u{11A8}"  // 각, as three conjoining jamo
        #expect(try Nickname(validating: String(repeating: decomposed, count: 8)).value.count == 8)
        #expect(Nickname.check(String(repeating: decomposed, count: 9)) == .failure(.tooLong))
        #expect(try Nickname(validating: "e\u{301}").value == "\u{E9}")  // stored in NFC
    }

    @Test("uniqueness ignores case, Unicode-aware, and canonical equivalence")
    func keys() throws {
        #expect(try Nickname(validating: "Moon").key == Nickname(validating: "mOON").key)
        #expect(try Nickname(validating: "ÄRGER").key == Nickname(validating: "ärger").key)
        #expect(try Nickname(validating: "e\u{301}").key == Nickname(validating: "\u{E9}").key)
        #expect(try Nickname(validating: "고래").key != Nickname(validating: "고래1").key)
    }

    @Test("a broken rule is 422 validation_failed naming the field")
    func error() {
        #expect(throws: SoomError.validationFailed(field: "nickname", Nickname.Problem.tooLong.message)) {
            try Nickname(validating: "아홉글자닉네임이다")
        }
    }
}

@Suite("Nickname suggestions")
struct NicknameSuggesterTests {
    @Test("every candidate is a valid nickname, in both languages", arguments: NicknameSuggester.Language.allCases)
    func candidatesAreValid(language: NicknameSuggester.Language) {
        var generator = SystemRandomNumberGenerator()
        let candidates = NicknameSuggester(language: language).candidates(200, using: &generator)
        #expect(candidates.count == 200)
        #expect(Set(candidates).count == 200)
        for candidate in candidates {
            #expect((try? Nickname.check(candidate.value).get()) == candidate)
        }
    }

    @Test(
        "Korean by default; Accept-Language picks English when asked",
        arguments: [
            (nil, NicknameSuggester.Language.korean), ("en-US,en;q=0.9", .english), ("fr, en", .english), ("ko-KR", .korean), ("de", .korean),
        ] as [(String?, NicknameSuggester.Language)])
    func language(header: String?, expected: NicknameSuggester.Language) {
        #expect(NicknameSuggester.Language(acceptLanguage: header) == expected)
    }
}

@Suite("Transfer codes and small value rules")
struct ValueTests {
    @Test("codes are 16 Crockford base32 characters in four groups, read back loosely")
    func transferCodes() {
        let code = TransferCode.make(from: [0xFF, 0x00, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0])
        #expect(code.wholeMatch(of: /[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}/) != nil)
        let canonical = TransferCode.canonical(code)
        #expect(canonical?.count == 16)
        #expect(TransferCode.canonical(code.lowercased().replacingOccurrences(of: "-", with: " ")) == canonical)
        #expect(TransferCode.canonical("OOOO-IIII-LLLL-0000") == "0000111111110000")
        #expect(TransferCode.canonical("ABCD-EFGH") == nil)
        #expect(TransferCode.canonical("ABCD-EFGH-JKMN-PQR!") == nil)
        #expect(TransferCode.canonical("ABCD-EFGH-JKMN-PQRSU") == nil)
    }

    @Test("bio: up to 150 characters, newlines yes, other control characters no")
    func bio() throws {
        #expect(try ProfileText.bio(String(repeating: "가", count: 150)).count == 150)
        #expect(try ProfileText.bio("줄\n바꿈") == "줄\n바꿈")
        #expect(throws: SoomError.self) { try ProfileText.bio(String(repeating: "a", count: 151)) }
        #expect(throws: SoomError.self) { try ProfileText.bio("bell\u{7}") }
        #expect(throws: SoomError.self) { try ProfileText.withdrawalReason(String(repeating: "a", count: 501)) }
        #expect(try ProfileText.withdrawalReason("") == "")
    }

    @Test("session tokens: 43 base64url characters, anything else is refused before storage is asked")
    func tokens() {
        #expect(SessionToken.isWellFormed(Substring(String(repeating: "a", count: 43))))
        #expect(SessionToken.isWellFormed("AZaz09-_AZaz09-_AZaz09-_AZaz09-_AZaz09-_abc"))
        #expect(!SessionToken.isWellFormed(Substring(String(repeating: "a", count: 42))))
        #expect(!SessionToken.isWellFormed("AZaz09+/AZaz09-_AZaz09-_AZaz09-_AZaz09-_abc"))
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
    }

    @Test("the signed message is soom:v1:<purpose>:<nonce>")
    func message() {
        #expect(SignaturePurpose.login.message(nonce: "abc") == Array("soom:v1:login:abc".utf8))
        #expect(SignaturePurpose.transfer.message(nonce: "n") != SignaturePurpose.register.message(nonce: "n"))
    }

    @Test(
        "look-alikes share one key: case, full width, Cyrillic letters, invisible characters and rn/m (Unicode TR 39)",
        arguments: ["ALICE", "Ａｌｉｃｅ", "alice", "A1ice", "Al\u{200B}ice"])
    func confusables(spelling: String) throws {
        #expect(Nickname.key(for: spelling) == Nickname.key(for: "Alice"), "\(spelling)")
        #expect(Nickname.key(for: "barn") == Nickname.key(for: "bam"))
        #expect(Nickname.key(for: "\u{0410}lice") == Nickname.key(for: "Alice"))  // Cyrillic А
        #expect(Nickname.key(for: "고래") != Nickname.key(for: "고라"))
    }

    @Test(
        "invisible characters, fillers, mixed scripts and stacked marks are refused; too many bytes is too long",
        arguments: [
            ("Alice\u{034F}", Nickname.Problem.invalidCharacters), ("Alice\u{FE0F}", .invalidCharacters), ("Alice\u{E0100}", .invalidCharacters),
            ("\u{3164}", .invalidCharacters), ("\u{115F}", .invalidCharacters), ("\u{FFA0}", .invalidCharacters), ("a\u{200D}b", .invalidCharacters),
            ("\u{0410}lice", .invalidCharacters), ("x\u{301}\u{302}\u{303}\u{304}\u{305}", .invalidCharacters),
            (String(repeating: "é\u{301}\u{301}\u{301}", count: 5), .tooLong),
        ])
    func invisible(raw: String, problem: Nickname.Problem) {
        #expect(Nickname.check(raw) == .failure(problem), "\(raw.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test(
        "reserved names are reserved in every look-alike spelling",
        arguments: ["аdmin", "ａｄｍｉｎ", "a d m in", "관 리 자", "Soom", "ＳＯＯＭ", "0perator"])
    func reservedLookAlikes(raw: String) {
        let outcome = Nickname.check(raw)
        #expect(outcome == .failure(.reserved) || outcome == .failure(.invalidCharacters), "\(raw): \(outcome)")
    }

    @Test("ICU answers: the start-up check passes, Latin with Hangul is one script, Latin with Cyrillic is not")
    func icu() throws {
        #expect(UnicodeSecurity.isAvailable)
        #expect(UnicodeSecurity.isSingleScript("Kim민수"))
        #expect(!UnicodeSecurity.isSingleScript("Al\u{0456}ce"))
        #expect(UnicodeSecurity.folded("ＣＡＦＥ\u{FE0F}") == "cafe")
        #expect(UnicodeSecurity.folded("") == "")
        #expect(try Nickname(validating: "Kim민수").value == "Kim민수")
    }
}
