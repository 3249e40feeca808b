/// Suggests an available nickname in the caller's language, checking availability in one query.
public struct SuggestNickname: Sendable {
    let environment: IdentityEnvironment

    public init(_ environment: IdentityEnvironment) {
        self.environment = environment
    }

    public func callAsFunction(language: NicknameSuggester.Language = .korean) async throws -> Nickname {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3 {
            let candidates = NicknameSuggester(language: language).candidates(12, using: &generator)
            let taken = try await self.environment.repository.takenNicknameKeys(candidates.map(\.key))
            if let free = candidates.first(where: { !taken.contains($0.key) }) { return free }
        }
        throw SoomError(.conflict, code: "nickname_unavailable", message: "No nickname suggestion is available right now; try again.")
    }
}
