import Foundation

/// A public display name: 1–8 grapheme clusters after trimming and at most 32 bytes of UTF-8,
/// made of letters, digits, spaces and `_` `.` `-`, in one script (or Latin with one other, such
/// as Hangul); nothing invisible (variation selectors, joiners, fillers such as U+3164 are not
/// letters here); unique by its confusable skeleton, so that a look-alike of a taken or reserved
/// name is taken or reserved too (`UnicodeSecurity`).
///
/// The stored spelling is trimmed and in Unicode NFC; `key` is what uniqueness compares.
public struct Nickname: Sendable, Hashable, CustomStringConvertible {
    /// Why a nickname cannot be used; the raw values are the contract's `reason`s.
    public enum Problem: String, Error, Sendable, Equatable {
        case empty
        case tooLong = "too_long"
        case invalidCharacters = "invalid_characters"
        case reserved
        /// Contains a word operators refuse (`RefusedWords`).
        case notAllowed = "not_allowed"
        case taken
    }

    public static let maximumLength = 8
    public static let maximumBytes = 32

    /// Names nobody may take, compared the way `reservedKey` folds them.
    static let reservedNames: [String] = [
        "operator", "operators", "admin", "admins", "administrator", "root", "system", "sysop", "moderator", "mod",
        "staff", "support", "help", "official", "soom", "soomteam", "null", "undefined", "anonymous", "everyone",
        "운영자", "운영진", "운영팀", "관리자", "관리인", "관리팀", "숨", "숨팀", "숨운영자", "공식", "고객센터", "시스템", "익명",
    ]
    static let reservedKeys = Set(reservedNames.map(reservedKey(for:)))
    /// The built-in operator account's name: reserved, so that no one else can take it or a look-alike.
    public static let operatorName = "운영자"

    /// The nickname as shown: trimmed, NFC.
    public let value: String

    /// Case-folded form used for uniqueness.
    public var key: String { Self.key(for: self.value) }

    public var description: String { self.value }

    /// Checks `raw` against every rule except availability, `refused` among them.
    public static func check(_ raw: String, refusing refused: RefusedWords = .none) -> Result<Nickname, Problem> {
        let value = raw.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        if value.isEmpty { return .failure(.empty) }
        if value.utf8.count > Self.maximumBytes || value.count > Self.maximumLength { return .failure(.tooLong) }
        if !value.allSatisfy(Self.isAllowed) || !UnicodeSecurity.isSingleScript(value) { return .failure(.invalidCharacters) }
        if Self.reservedKeys.contains(Self.reservedKey(for: value)) { return .failure(.reserved) }
        if refused.refuses(value) { return .failure(.notAllowed) }
        return .success(Nickname(value: value))
    }

    /// Validates or throws the contract's `422 validation_failed` naming `field`.
    public init(validating raw: String, field: String = "nickname", refusing refused: RefusedWords = .none) throws(SoomError) {
        switch Self.check(raw, refusing: refused) {
        case .success(let nickname): self = nickname
        case .failure(let problem): throw SoomError.validationFailed(field: field, problem.message)
        }
    }

    private init(value: String) {
        self.value = value
    }

    /// What uniqueness compares: the confusable skeleton of the NFKC case-folded name without
    /// default-ignorable characters (`UnicodeSecurity.confusableKey`). `accounts.nickname_key`
    /// holds it (`NicknameRekey` brings older keys to it).
    public static func key(for value: String) -> String {
        UnicodeSecurity.confusableKey(value)
    }

    /// Reserved names also match when spelled with separators ("ad min", "a.d.m.i.n") or with
    /// look-alike letters ("аdmin" in Cyrillic, "ａｄｍｉｎ" in full width).
    static func reservedKey(for value: String) -> String {
        Self.key(for: String(value.filter { !" _.-".contains($0) }))
    }

    /// A letter (with at most `WrittenText.maximumMarksPerCharacter` combining marks), a decimal
    /// digit, a plain space, or `_` `.` `-`; never a default-ignorable code point (a variation
    /// selector, a joiner, a Hangul filler: they are invisible, and fillers count as letters).
    private static func isAllowed(_ character: Character) -> Bool {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return false }
        if scalars.contains(where: { $0.properties.isDefaultIgnorableCodePoint || $0.properties.isVariationSelector }) { return false }
        if WrittenText.marks(in: character) > WrittenText.maximumMarksPerCharacter { return false }
        if scalars.count == 1, first == " " || first == "_" || first == "." || first == "-" { return true }
        switch first.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter:
            return scalars.dropFirst().allSatisfy { Self.isMark($0) || Self.isHangulJamo($0) }
        case .decimalNumber:
            return scalars.count == 1
        default:
            return false
        }
    }

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// Decomposed Hangul (conjoining jamo) forms one cluster of several letters.
    private static func isHangulJamo(_ scalar: Unicode.Scalar) -> Bool {
        (0x1100...0x11FF).contains(scalar.value) || (0xA960...0xA97F).contains(scalar.value) || (0xD7B0...0xD7FF).contains(scalar.value)
    }
}

extension Nickname.Problem {
    /// A sentence for humans.
    public var message: String {
        switch self {
        case .empty: "A nickname needs at least one character."
        case .tooLong: "A nickname has at most \(Nickname.maximumLength) characters."
        case .invalidCharacters: "A nickname may use letters, digits, spaces and _ . - only."
        case .reserved: "That nickname is reserved."
        case .notAllowed: "That nickname contains a word that is not allowed."
        case .taken: "That nickname is taken."
        }
    }
}
