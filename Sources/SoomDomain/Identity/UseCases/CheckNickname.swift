/// Tells whether a nickname can be used, and if not, why (`taken`, `too_long`, `empty`, `reserved`, `not_allowed`, `invalid_characters`).
public struct CheckNickname: Sendable {
    let environment: IdentityEnvironment

    public init(_ environment: IdentityEnvironment) {
        self.environment = environment
    }

    /// nil when available.
    public func callAsFunction(_ raw: String) async throws -> Nickname.Problem? {
        switch Nickname.check(raw, refusing: self.environment.switches.refusedWords) {
        case .failure(let problem):
            return problem
        case .success(let nickname):
            let taken = try await self.environment.repository.takenNicknameKeys([nickname.key])
            return taken.isEmpty ? nil : .taken
        }
    }
}
