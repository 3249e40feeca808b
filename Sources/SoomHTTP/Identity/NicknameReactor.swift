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
        /// `500`: nothing suggested or checked (the use cases answer or throw, so only a fault leaves it).
        case error(APIError)
    }

    let suggestNickname: SuggestNickname
    let checkNickname: CheckNickname

    func initialState(for action: Action) -> State { .error(.internalError) }

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .suggest(let language): [.suggested(try await self.suggestNickname(language: language))]
        case .validate(let raw): [.checked(problem: try await self.checkNickname(raw))]
        }
    }

    static func reduce(state: State, mutation: Mutation) -> State {
        switch mutation {
        case .suggested(let nickname): .suggestion(nickname)
        case .checked(let problem): .validation(problem: problem)
        }
    }
}

extension NicknameReactor.State: ResponseState {
    func response() throws -> Response {
        switch self {
        case .suggestion(let nickname):
            try JSON.response(.ok, IdentityResponses.NicknameSuggestion(nickname: nickname.value))
        case .validation(let problem):
            try JSON.response(.ok, IdentityResponses.NicknameValidation(available: problem == nil, reason: problem?.rawValue))
        case .error(let error):
            try error.response()
        }
    }
}
