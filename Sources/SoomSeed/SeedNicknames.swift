import SoomDomain

/// Nickname stems ("고요한 고래", "별", "CalmFox") and the rule that makes them unique:
/// account `i` is `stems[i % count]` followed by `i / count` (nothing when 0). Stems have no
/// digits and distinct keys, so the trailing number and the stem identify `i`: names and their
/// case-folded keys are unique by construction.
struct SeedNicknames {
    let stems: [String]
    /// `Nickname.key(for:)` of each stem, as the server computes it.
    let keys: [String]

    /// Stems short enough that every name of accounts `offset ..< offset + accounts` fits.
    static func choose(accounts: Int, offset: Int) throws(SeedError) -> SeedNicknames {
        var pool = Self.all
        while true {
            let largest = (offset + accounts - 1) / max(pool.count, 1)
            let room = Nickname.maximumLength - (largest == 0 ? 0 : String(largest).count)
            let fitting = pool.filter { $0.count <= room }
            if fitting.isEmpty { throw .nicknamesExhausted(accounts + offset) }
            if fitting.count == pool.count { break }
            pool = fitting
        }
        return SeedNicknames(stems: pool, keys: pool.map { Nickname.key(for: $0) })
    }

    /// Every candidate stem, valid and with distinct keys, in a fixed mixed order.
    static let all: [String] = {
        let koreanAdjectives = [
            "고요한", "다정한", "푸른", "따뜻한", "조용한", "반짝이는", "느긋한", "용감한", "수줍은", "명랑한", "포근한", "싱그러운",
            "졸린", "씩씩한", "말랑한", "새벽의", "은은한", "해맑은", "단단한", "유쾌한", "차분한", "너그러운", "엉뚱한", "소중한",
        ]
        let koreanNouns = [
            "고래", "여우", "별", "구름", "달", "바람", "나무", "고양이", "강아지", "토끼", "수달", "펭귄", "부엉이", "호랑이",
            "다람쥐", "파도", "노을", "햇살", "새싹", "조약돌", "등대", "나비", "곰", "사슴", "하늘", "바다", "꽃", "숲", "비", "밤",
            "새벽", "별빛", "사과", "감자",
        ]
        let englishAdjectives = ["Calm", "Kind", "Blue", "Warm", "Shy", "Cozy", "Bold", "Mild", "Wise", "Soft", "Glad", "Keen", "Fair", "Cool"]
        let englishNouns = ["Fox", "Owl", "Cat", "Elk", "Bee", "Yak", "Emu", "Jay", "Sun", "Sky", "Oak", "Fig", "Koi", "Ray"]
        var candidates = koreanNouns + englishNouns + ["moon", "sora", "haru", "luna", "mint", "coco", "dodo", "nabi", "bomi"]
        for adjective in koreanAdjectives {
            for noun in koreanNouns {
                candidates.append(adjective + " " + noun)
                candidates.append(adjective + noun)
            }
        }
        for adjective in englishAdjectives {
            for noun in englishNouns {
                candidates.append(adjective + noun)
                candidates.append(adjective.lowercased() + "." + noun.lowercased())
                candidates.append(adjective.lowercased() + "_" + noun.lowercased())
            }
        }
        var keys = Set<String>()
        let valid = candidates.filter { stem in
            guard case .success(let nickname) = Nickname.check(stem), nickname.value == stem,
                !stem.contains(where: \.isNumber), keys.insert(nickname.key).inserted
            else { return false }
            return true
        }
        // A fixed scramble (FNV-1a): consecutive accounts get unrelated names, the same on every run.
        return valid.sorted { Self.fnv($0) < Self.fnv($1) }
    }()

    private static func fnv(_ text: String) -> UInt64 {
        text.utf8.reduce(14_695_981_039_346_656_037 as UInt64) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
    }
}
