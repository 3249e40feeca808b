import Foundation

/// Makes readable nickname candidates: an adjective and a noun ("고요한 고래"), Korean by default.
///
/// Every candidate satisfies `Nickname.check`; availability is the caller's question.
public struct NicknameSuggester: Sendable {
    /// Languages with word lists.
    public enum Language: String, Sendable, CaseIterable {
        case korean = "ko"
        case english = "en"

        /// Picks the first supported language in an `Accept-Language` header; Korean otherwise.
        public init(acceptLanguage: String?) {
            let tags = (acceptLanguage ?? "").split(separator: ",").map {
                $0.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            }
            for tag in tags {
                if let language = Language.allCases.first(where: { tag == $0.rawValue || tag.hasPrefix($0.rawValue + "-") }) {
                    self = language
                    return
                }
            }
            self = .korean
        }
    }

    static let words: [Language: (adjectives: [String], nouns: [String])] = [
        .korean: (
            [
                "고요한", "다정한", "푸른", "따뜻한", "조용한", "반짝이는", "느긋한", "용감한", "수줍은", "명랑한", "포근한", "싱그러운",
                "졸린", "씩씩한", "말랑한", "새벽의", "은은한", "해맑은", "단단한", "유쾌한", "차분한", "너그러운", "엉뚱한", "소중한",
            ],
            [
                "고래", "여우", "별", "구름", "달", "바람", "나무", "고양이", "강아지", "토끼", "수달", "펭귄", "부엉이", "호랑이",
                "다람쥐", "파도", "노을", "햇살", "새싹", "조약돌", "등대", "나비", "곰", "사슴",
            ]
        ),
        .english: (
            ["Calm", "Kind", "Blue", "Warm", "Shy", "Cozy", "Bold", "Mild", "Wise", "Soft", "Glad", "Keen", "Fair", "Cool"],
            ["Fox", "Owl", "Cat", "Elk", "Bee", "Yak", "Emu", "Jay", "Sun", "Sky", "Oak", "Fig", "Koi", "Ray"]
        ),
    ]

    public let language: Language

    public init(language: Language = .korean) {
        self.language = language
    }

    /// `count` random candidates, valid nicknames all. Later ones carry a number so that a
    /// crowded word space still yields free names.
    public func candidates(_ count: Int, using generator: inout some RandomNumberGenerator) -> [Nickname] {
        let (adjectives, nouns) = Self.words[self.language]!
        var result: [Nickname] = []
        var attempts = 0
        while result.count < count, attempts < count * 10 {
            attempts += 1
            let adjective = adjectives.randomElement(using: &generator)!
            let noun = nouns.randomElement(using: &generator)!
            let separator = self.language == .korean ? " " : ""
            var raw = adjective + separator + noun
            if attempts > count / 2 {
                // Numbered: the words without a space, then as many digits as still fit.
                let stem = (adjective + noun).count < Nickname.maximumLength ? adjective + noun : noun
                let room = min(3, Nickname.maximumLength - stem.count)
                raw = stem + String(Int.random(in: 1..<Self.powerOfTen(room), using: &generator))
            }
            if case .success(let nickname) = Nickname.check(raw), !result.contains(nickname) {
                result.append(nickname)
            }
        }
        return result
    }

    private static func powerOfTen(_ exponent: Int) -> Int {
        (0..<exponent).reduce(1) { product, _ in product * 10 }
    }
}
