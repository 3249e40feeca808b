import Foundation
import Testing

@testable import SoomDomain

/// The rules behind the operators' switches: refused words, versions, and what a version check answers.
@Suite("Operator rules")
struct OperatorRuleTests {
    @Test("a refused word is found however it is spaced, dotted, widened, cased or hidden, and only where it is")
    func refusedWords() {
        let words = RefusedWords(["ㅅㅂ", "fuck", "고 래"])
        for text in ["ㅅ ㅂ", "ㅅ.ㅂ", "ㅅ\u{200B}ㅂ", "ＦＵＣＫ", "f.u.c.k", "F-U_C-K", "fuck!", "나는고래다", "#고래"] {
            #expect(words.refuses(text), "\(text)")
        }
        for text in ["ㅅ", "fun", "고기", "shiitake", ""] {
            #expect(!words.refuses(text), "\(text)")
        }
        // A word of nothing but punctuation refuses nothing; no words, nothing.
        #expect(!RefusedWords(["..."]).refuses("..."))
        #expect(!RefusedWords.none.refuses("fuck"))
        #expect(RefusedWords.key(for: "Ｆ.ｕ ｃ\u{FE0F}k") == "fuck")
        #expect(throws: SoomError.self) { try words.require([try Tag(normalising: "좋은날"), try Tag(normalising: "FUCKyeah")]) }
        #expect(throws: Never.self) { try words.require([try Tag(normalising: "좋은날")]) }
    }

    @Test("versions are MAJOR.MINOR.PATCH and order numerically")
    func versions() throws {
        #expect(SemanticVersion("1.10.0")! > SemanticVersion("1.9.9")!)
        #expect(SemanticVersion("2.0.0")! > SemanticVersion("1.99.99")!)
        #expect(SemanticVersion("01.2.3") == SemanticVersion("1.2.3"))
        #expect(SemanticVersion("0.0.0")?.description == "0.0.0")
        for text in ["", "1", "1.2", "1.2.3.4", "v1.2.3", "1.2.3-beta", "1.2.+3", "-1.2.3", "1..3", " 1.2.3", "1.2.3 ", "１.2.3", "1234567890.0.0"] {
            #expect(SemanticVersion(text) == nil, "\(text)")
        }
        #expect(throws: SoomError.validationFailed(field: "version", "A version is MAJOR.MINOR.PATCH, such as 1.4.0.")) {
            try SemanticVersion(validating: "1.2", field: "version")
        }
    }

    @Test("a version check: required below the minimum, offered below the latest, ok from it; unknown platforms are 404")
    func versionCheck() throws {
        let switches = OperatorSwitches()
        let check = CheckClientVersion(switches)
        #expect(try check(platform: "ios", version: "0.0.1").status == .ok)
        switches.update(
            OperatorSwitches.Settings(clientVersions: [
                .ios: ClientVersionPolicy(latest: SemanticVersion("1.4.0")!, minimum: SemanticVersion("1.2.0")!)
            ]))
        #expect(try check(platform: "ios", version: "1.1.9").status == .updateRequired)
        #expect(try check(platform: "ios", version: "1.2.0").status == .updateAvailable)
        #expect(try check(platform: "ios", version: "1.4.0").status == .ok)
        #expect(try check(platform: "android", version: "1.0.0").status == .ok)
        #expect(throws: SoomError.self) { try check(platform: "IOS", version: "1.0.0") }
        #expect(throws: SoomError.self) { try check(platform: "ios", version: "1.0") }
    }

    @Test("maintenance is on only until its end")
    func maintenance() {
        let now = Date()
        let switches = OperatorSwitches(OperatorSwitches.Settings(maintenanceUntil: now.addingTimeInterval(60)))
        #expect(switches.maintenance(at: now) == now.addingTimeInterval(60))
        #expect(switches.maintenance(at: now.addingTimeInterval(60)) == nil)
        #expect(OperatorSwitches().maintenance(at: now) == nil)
    }
}
