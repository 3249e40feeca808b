import Foundation
import SoomData
import SoomDomain

/// What the generated rows are made of: words, tags, places and fixed bytes. The text fragments
/// pick from the word lists a statement binds once in its `given` table (`sentences`).
enum SeedVocabulary {
    static let backgrounds = DefaultBackground.all.map(\.name)

    static let bios = [
        "커피 없인 못 살아요", "그냥 지나가는 사람", "오늘도 무사히", "글 쓰는 걸 좋아해요", "고양이 두 마리와 살아요", "서울 사는 직장인",
        "새벽 감성 충전 중", "여행 가고 싶다", "Hello from Seoul", "Coffee, books, rain.", "just vibing", "매일 조금씩 기록하기",
        "말보다 글이 편한 사람", "Night owl 🦉", "부산 바다 좋아함", "취준생 화이팅", "Be kind.", "음악은 늘 플레이리스트 셔플",
    ]

    // Korean sentences: [time] subject predicate, or a standalone line.
    static let koreanTimes = [
        "오늘", "요즘", "문득", "새벽에", "퇴근길에", "출근길에", "점심에", "주말에", "어제", "방금", "오랜만에", "비 오는 날",
        "밤늦게", "아침부터", "오늘따라", "가끔", "그날", "요새", "이번 주는", "한강에서",
    ]
    static let koreanSubjects = [
        "하늘이", "바다가", "커피가", "바람이", "노을이", "고양이가", "강아지가", "음악이", "친구가", "엄마가", "도시가", "창밖 풍경이",
        "이 노래가", "빗소리가", "달이", "골목길이", "책 한 권이", "밥 한 끼가", "산책이", "지하철이", "공기가", "마음이", "햇살이",
        "꽃이", "첫눈이", "편지가", "동생이", "하루가", "일이", "공부가",
    ]
    static let koreanPredicates = [
        "유난히 예뻤다.", "생각보다 따뜻했다.", "괜히 위로가 됐다.", "너무 좋았어요.", "오래 기억에 남을 것 같다.", "조금 쓸쓸했다.",
        "마음을 편하게 해줬다.", "참 고마웠다.", "왠지 낯설었다.", "자꾸 생각난다.", "나를 웃게 했다 ㅎㅎ", "그냥 그랬다.",
        "눈물 날 만큼 좋았다 ㅠㅠ", "한참을 바라봤다.", "특별하게 느껴졌다.", "평소랑 달랐다.", "기분을 바꿔줬다!", "정말 최고였다.",
        "사진으로는 다 못 담겠다.", "유독 힘들게 느껴졌다.", "괜찮다고 말해줬다.", "생각보다 별로였다 ㅋㅋ", "아직도 잊히지 않는다.",
        "오늘 하루를 살렸다.",
    ]
    static let koreanLines = [
        "다들 좋은 하루 보내세요!", "내일은 더 나아지겠지.", "오늘도 수고했어요, 모두.", "힘내자, 우리 조금만 더.", "잠이 안 오는 밤이다.",
        "누가 내 얘기 좀 들어줘.", "이런 날도 있는 거지 뭐.", "행복은 가까이에 있었다.", "벌써 월요일이라니 ㅠㅠ", "배고프다… 뭐 먹지?",
        "그래도 괜찮아, 진짜로.", "아무 말이나 하고 싶은 밤.", "오늘의 기분은 맑음.", "집에 가고 싶다 ㅋㅋㅋ", "다음엔 꼭 같이 가자.",
    ]
    static let koreanReplies = [
        "완전 공감해요!", "저도 그래요 ㅠㅠ", "힘내세요!", "와 진짜 예쁘다", "ㅋㅋㅋㅋ 너무 웃겨요", "좋은 글 고마워요", "오늘도 수고 많았어요",
        "저도 거기 가봤어요!", "무슨 노래예요?", "응원할게요 :)", "사진 너무 좋네요", "마음이 따뜻해지네요", "맞아요 정말", "토닥토닥",
        "저랑 똑같으시네요", "부럽다…", "다음엔 같이 가요!", "이거 완전 제 얘기", "괜찮아요, 잘하고 있어요", "ㅎㅎ 귀엽다",
    ]

    // English sentences: [time] subject predicate, or a standalone line.
    static let englishTimes = [
        "Today", "Lately", "This morning", "Tonight", "After work", "On the way home", "Somehow", "Last night", "Again", "For once",
        "At lunch", "This weekend",
    ]
    static let englishSubjects = [
        "the sky", "the sea", "my coffee", "the wind", "the sunset", "my cat", "the dog next door", "this song", "an old friend",
        "the city", "the rain", "the moon", "the subway", "my mom", "the air", "a stranger", "this book", "the street",
    ]
    static let englishCapitalisedSubjects = englishSubjects.map { $0.prefix(1).uppercased() + $0.dropFirst() }
    static let englishPredicates = [
        "looked unreal.", "felt warmer than I expected.", "made me smile.", "was exactly what I needed.", "felt a little lonely.",
        "reminded me of home.", "was just okay.", "kept me going.", "said it would be fine.", "felt different somehow.",
        "was the best part of the day!", "made everything quieter.", "tasted like summer.", "stayed with me all day.",
    ]
    static let englishLines = [
        "Have a good day, everyone!", "Tomorrow will be better.", "Can't sleep again.", "Who else is still awake?", "Small things matter.",
        "Monday already? Really?", "I miss the ocean.", "Be kind to yourself today.", "Just needed to say this somewhere.",
    ]
    static let englishReplies = [
        "Same here!", "This made my day.", "Love this!", "Stay strong.", "So true.", "Where is this?", "Beautiful.", "Sending hugs.",
        "I needed this today.", "Haha, exactly.", "You've got this!", "Same, honestly.",
    ]

    /// Most sentences a card may have in each language so that it stays within 200 characters.
    static func sentenceLimit(longest: Int) -> Int { min(4, (200 + 1) / (longest + 1)) }

    /// The word lists the text fragments pick from, as `given`'s columns (`\(given: anchor, SeedVocabulary.sentences)`).
    static let sentences: [(String, [String])] = [
        ("korean_times", koreanTimes), ("korean_subjects", koreanSubjects), ("korean_predicates", koreanPredicates),
        ("korean_lines", koreanLines), ("korean_replies", koreanReplies), ("english_times", englishTimes),
        ("english_subjects", englishSubjects), ("english_capitalised", englishCapitalisedSubjects),
        ("english_predicates", englishPredicates), ("english_lines", englishLines), ("english_replies", englishReplies),
    ]

    /// A card's text: 72% Korean, 1–4 sentences (10–200 characters). Reads `sentences` from `given`.
    static func cardContent(language: String, length: String) -> String {
        let koreanLongest =
            self.koreanTimes.map(\.count).max()! + 1 + self.koreanSubjects.map(\.count).max()! + 1
            + self.koreanPredicates.map(\.count).max()!
        let englishLongest =
            max(
                self.englishTimes.map(\.count).max()! + 1 + self.englishSubjects.map(\.count).max()!,
                self.englishCapitalisedSubjects.map(\.count).max()!) + 1 + self.englishPredicates.map(\.count).max()!
        func paragraph(_ sentence: String, limit: Int) -> String {
            // Sentence k is there when `length` passed its threshold: 35% one, 35% two, 20% three, 10% four.
            let thresholds = [0.35, 0.70, 0.90].prefix(limit - 1)
            return ([sentence] + thresholds.map { "CASE WHEN \(length) >= \($0) THEN ' ' || \(sentence) ELSE '' END" }).joined(separator: " || ")
        }
        return """
            CASE WHEN \(language) < 0.72 THEN \(paragraph(self.koreanSentence, limit: self.sentenceLimit(longest: max(koreanLongest, self.koreanLines.map(\.count).max()!))))
                 ELSE \(paragraph(self.englishSentence, limit: self.sentenceLimit(longest: max(englishLongest, self.englishLines.map(\.count).max()!)))) END
            """
    }

    /// A comment card's text: a reply, sometimes followed by a sentence. Reads `sentences` from `given`.
    static func commentContent(language: String) -> String {
        """
        CASE WHEN \(language) < 0.72
             THEN \(self.pick("korean_replies", self.koreanReplies.count)) || CASE WHEN random() < 0.35 THEN ' ' || \(self.koreanSentence) ELSE '' END
             ELSE \(self.pick("english_replies", self.englishReplies.count)) || CASE WHEN random() < 0.35 THEN ' ' || \(self.englishSentence) ELSE '' END END
        """
    }

    private static let koreanSentence = """
        (CASE WHEN random() < 0.2 THEN \(pick("korean_lines", koreanLines.count))
              ELSE CASE WHEN random() < 0.65 THEN \(pick("korean_times", koreanTimes.count)) || ' ' ELSE '' END
                   || \(pick("korean_subjects", koreanSubjects.count)) || ' ' || \(pick("korean_predicates", koreanPredicates.count)) END)
        """

    private static let englishSentence = """
        (CASE WHEN random() < 0.2 THEN \(pick("english_lines", englishLines.count))
              ELSE CASE WHEN random() < 0.5 THEN \(pick("english_times", englishTimes.count)) || ' ' || \(pick("english_subjects", englishSubjects.count))
                        ELSE \(pick("english_capitalised", englishCapitalisedSubjects.count)) END
                   || ' ' || \(pick("english_predicates", englishPredicates.count)) END)
        """

    /// A uniformly random element of `given`'s array column `name`, of `count` elements.
    static func pick(_ name: String, _ count: Int) -> String {
        "(SELECT \(name) FROM given)[1 + floor(random() * \(count))::int]"
    }

    /// 55% default, 20% rounded, 15% handwriting, 10% serif.
    static func font(_ random: String) -> String {
        "CASE WHEN \(random) < 0.55 THEN 'default' WHEN \(random) < 0.75 THEN 'rounded' WHEN \(random) < 0.90 THEN 'handwriting' ELSE 'serif' END"
    }

    /// ~150,000 tag names (letters, digits and `_`, at most 15 characters), most popular first:
    /// picked with a Zipf-like law (a million cards use about 100,000 of them), the head is
    /// common words and the tail is long: numbered words, Hangul and Latin made-up words.
    static let tags: [String] = {
        let korean = [
            "일상", "하늘", "감성", "고양이", "커피", "여행", "바다", "맛집", "음악", "퇴근", "새벽", "사랑", "위로", "산책", "강아지", "노을",
            "카페", "주말", "공부", "운동", "책", "영화", "비", "눈", "봄", "여름", "가을", "겨울", "꽃", "달", "별", "친구", "가족", "연애",
            "이별", "고민", "회사", "학교", "시험", "취업", "다이어트", "요리", "드라마", "게임", "사진", "그림", "글귀", "독서", "혼밥",
            "혼술", "야경", "제주", "서울", "부산", "한강", "출근", "월요일", "불금", "잠", "행복", "우울", "힐링", "추억", "기록", "오늘",
            "하루", "마음", "빵", "라면", "치킨", "떡볶이", "편의점", "지하철", "버스", "등산", "캠핑", "바다여행", "전시", "공연", "덕질",
        ]
        let english = [
            "daily", "sky", "coffee", "travel", "sea", "food", "music", "love", "cat", "dog", "sunset", "cafe", "weekend", "study", "workout",
            "books", "movie", "rain", "snow", "spring", "summer", "autumn", "winter", "flowers", "moon", "stars", "friends", "family", "photo",
            "art", "quotes", "seoul", "busan", "jeju", "night", "mood", "healing", "memories", "life", "selfcare", "mondays", "latenight",
            "ootd", "kpop", "film", "poetry", "city", "nature",
        ]
        // Head: two Korean words for each English one.
        var head: [String] = []
        var koreanWords = korean[...]
        var englishWords = english[...]
        while !koreanWords.isEmpty || !englishWords.isEmpty {
            head.append(contentsOf: koreanWords.prefix(2))
            koreanWords = koreanWords.dropFirst(2)
            head.append(contentsOf: englishWords.prefix(1))
            englishWords = englishWords.dropFirst(1)
        }
        var result = head
        // Middle: compounds ("고양이스타그램", "coffee_lover").
        for suffix in ["스타그램", "일기", "기록", "사진", "모음", "생각", "타임", "러버"] {
            result += korean.map { $0 + suffix }
        }
        for suffix in ["_daily", "_lover", "_time", "_gram", "_vibes", "_diary"] {
            result += english.map { $0 + suffix }
        }
        // Tail: numbered names ("고양이_1234"), made-up Hangul words ("바람소리숲") and Latin
        // ones ("mirokani"), from a fixed linear congruential sequence (the same every run).
        let words = korean + english
        let hangul = Array("가나다라마바사아자차카타파하고노도로모보소오조초코토포호구누두루무부수우주추쿠투푸후기니디리미비시이지치키티피히별숲빛꿈달솔")
        let latin = ["ka", "ro", "mi", "na", "te", "lu", "so", "vi", "pe", "da", "ri", "mo", "ne", "sa", "ki", "lo", "ba", "ze", "fu", "jo"]
        var state: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        while result.count < 150_000 {
            switch result.count % 3 {
            case 0: result.append("\(words[next(words.count)])_\(1_000 + next(9_000))")
            case 1: result.append(String((0..<(2 + next(4))).map { _ in hangul[next(hangul.count)] }))
            default: result.append((0..<(2 + next(4))).map { _ in latin[next(latin.count)] }.joined())
            }
        }
        var seen = Set<String>()
        return result.filter { tag in
            tag.count <= 15 && tag.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && seen.insert(tag).inserted
        }
    }()

    struct City {
        let name: String
        let latitude: Double
        let longitude: Double
        let weight: Double
        /// Degrees of jitter around the centre.
        let spread: Double
    }

    static let cities: [City] = [
        City(name: "Seoul", latitude: 37.5665, longitude: 126.9780, weight: 0.42, spread: 0.10),
        City(name: "Busan", latitude: 35.1796, longitude: 129.0756, weight: 0.12, spread: 0.07),
        City(name: "Incheon", latitude: 37.4563, longitude: 126.7052, weight: 0.07, spread: 0.06),
        City(name: "Daegu", latitude: 35.8714, longitude: 128.6014, weight: 0.06, spread: 0.06),
        City(name: "Daejeon", latitude: 36.3504, longitude: 127.3845, weight: 0.05, spread: 0.05),
        City(name: "Gwangju", latitude: 35.1595, longitude: 126.8526, weight: 0.05, spread: 0.05),
        City(name: "Suwon", latitude: 37.2636, longitude: 127.0286, weight: 0.05, spread: 0.04),
        City(name: "Jeju", latitude: 33.4996, longitude: 126.5312, weight: 0.05, spread: 0.08),
        City(name: "Ulsan", latitude: 35.5384, longitude: 129.3114, weight: 0.03, spread: 0.04),
        City(name: "Jeonju", latitude: 35.8242, longitude: 127.1480, weight: 0.02, spread: 0.03),
        City(name: "Gangneung", latitude: 37.7519, longitude: 128.8761, weight: 0.02, spread: 0.03),
        City(name: "Tokyo", latitude: 35.6762, longitude: 139.6503, weight: 0.02, spread: 0.10),
        City(name: "Osaka", latitude: 34.6937, longitude: 135.5023, weight: 0.01, spread: 0.06),
        City(name: "New York", latitude: 40.7128, longitude: -74.0060, weight: 0.01, spread: 0.08),
        City(name: "Paris", latitude: 48.8566, longitude: 2.3522, weight: 0.01, spread: 0.05),
        City(name: "London", latitude: 51.5072, longitude: -0.1276, weight: 0.01, spread: 0.06),
    ]

    /// Lower bounds of each city's share of [0, 1): `width_bucket(random(), …)` picks a city by weight.
    static let cityThresholds: [Double] = {
        let total = cities.reduce(0) { $0 + $1.weight }
        var running = 0.0
        return cities.map { city in
            defer { running += city.weight / total }
            return running
        }
    }()

    /// DER SubjectPublicKeyInfo header of an uncompressed P-256 key, up to and including the 0x04.
    static let p256PublicKeyPrefix = Data([
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D,
        0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04,
    ])

    /// A valid 1×1 PNG (one soft blue pixel): the bytes of every seeded upload.
    static let uploadPNG = Data([
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01,
        0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xDE, 0x00, 0x00, 0x00, 0x0C, 0x49, 0x44, 0x41,
        0x54, 0x78, 0xDA, 0x63, 0xD8, 0x72, 0xE5, 0x03, 0x00, 0x04, 0xB8, 0x02, 0x79, 0x76, 0xBC, 0x03, 0x7E, 0x00, 0x00, 0x00,
        0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ])
}
