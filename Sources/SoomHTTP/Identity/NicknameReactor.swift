import Hummingbird
import SoomDomain

/// `GET /v1/nicknames/suggestion` and `POST /v1/nicknames/validation`.
struct NicknameReactor: Reactor {
    enum Action: Sendable {
        case suggest(NicknameSuggester.Language)
        case validate(String)
    }

    enum Mutation: Sendable {
        case suggested(Nickname)
        case checked(problem: Nickname.Problem?)
    }

    enum State: Sendable, Equatable {
        case suggestion(Nickname)
        case validation(problem: Nickname.Problem?)
    }

    let suggestNickname: SuggestNickname
    let checkNickname: CheckNickname

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .suggest(let language): [.suggested(try await self.suggestNickname(language: language))]
        case .validate(let raw): [.checked(problem: try await self.checkNickname(raw))]
        }
    }

    static func reduce(state: State?, mutation: Mutation) -> State? {
        switch mutation {
        case .suggested(let nickname): .suggestion(nickname)
        case .checked(let problem): .validation(problem: problem)
        }
    }
}

extension NicknameReactor.State: ResponseState {
    func response() -> Response {
        switch self {
        case .suggestion(let nickname):
            JSON.response(.ok, writing: IdentityResponses.NicknameSuggestion(nickname: nickname.value), capacity: 128)
        case .validation(let problem):
            JSON.response(.ok, writing: IdentityResponses.NicknameValidation(available: problem == nil, reason: problem?.rawValue), capacity: 128)
        }
    }
}
