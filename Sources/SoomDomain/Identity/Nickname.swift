import Foundation

/// A public display name: 1–8 grapheme clusters after trimming, made of letters, digits,
/// spaces and `_` `.` `-`; unique ignoring case; never one of the reserved names.
///
/// The stored spelling is trimmed and in Unicode NFC; `key` is what uniqueness compares.
public struct Nickname: Sendable, Hashable, CustomStringConvertible {
    /// Why a nickname cannot be used; the raw values are the contract's `reason`s.
    public enum Problem: String, Error, Sendable, Equatable {
        case empty
        case tooLong = "too_long"
        case invalidCharacters = "invalid_characters"
        case reserved
        case taken
    }

    public static let maximumLength = 8

    /// Names nobody may take, compared the way `reservedKey` folds them.
    static let reservedNames: Set<String> = [
        "operator", "operators", "admin", "admins", "administrator", "root", "system", "sysop", "moderator", "mod",
        "staff", "support", "help", "official", "soom", "soomteam", "null", "undefined", "anonymous", "everyone",
        "운영자", "운영진", "운영팀", "관리자", "관리인", "관리팀", "숨", "숨팀", "숨운영자", "공식", "고객센터", "시스템", "익명",
    ]

    /// The nickname as shown: trimmed, NFC.
    public let value: String

    /// Case-folded form used for uniqueness.
    public var key: String { Self.key(for: self.value) }

    public var description: String { self.value }

    /// Checks `raw` against every rule except availability.
    public static func check(_ raw: String) -> Result<Nickname, Problem> {
        let value = raw.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        if value.isEmpty { return .failure(.empty) }
        if value.count > Self.maximumLength { return .failure(.tooLong) }
        if !value.allSatisfy(Self.isAllowed) { return .failure(.invalidCharacters) }
        if Self.reservedNames.contains(Self.reservedKey(for: value)) { return .failure(.reserved) }
        return .success(Nickname(value: value))
    }

    /// Validates or throws the contract's `422 validation_failed` naming `field`.
    public init(validating raw: String, field: String = "nickname") throws(SoomError) {
        switch Self.check(raw) {
        case .success(let nickname): self = nickname
        case .failure(let problem): throw SoomError.validationFailed(field: field, problem.message)
        }
    }

    private init(value: String) {
        self.value = value
    }

    /// Uniqueness ignores case (Unicode-aware, not just ASCII).
    public static func key(for value: String) -> String {
        value.precomposedStringWithCanonicalMapping.lowercased()
    }

    /// Reserved names also match when spelled with separators ("ad min", "a.d.m.i.n").
    static func reservedKey(for value: String) -> String {
        String(Self.key(for: value).filter { !" _.-".contains($0) })
    }

    /// A letter (with any combining marks), a decimal digit, a plain space, or `_` `.` `-`.
    private static func isAllowed(_ character: Character) -> Bool {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return false }
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
        case .taken: "That nickname is taken."
        }
    }
}
