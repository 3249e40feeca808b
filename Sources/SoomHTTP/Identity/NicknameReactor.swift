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
        case pending
        case suggestion(Nickname)
        case validation(problem: Nickname.Problem?)
    }

    let suggestNickname: SuggestNickname
    let checkNickname: CheckNickname
    var initialState: State { .pending }

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
        case .pending:
            throw IncompleteReactorState(state: "\(self)")
        case .suggestion(let nickname):
            try JSON.response(.ok, IdentityResponses.NicknameSuggestion(nickname: nickname.value))
        case .validation(let problem):
            try JSON.response(.ok, IdentityResponses.NicknameValidation(available: problem == nil, reason: problem?.rawValue))
        }
    }
}
