import Hummingbird
import SoomDomain

/// `POST /v1/auth/challenges`: a fresh single-use nonce to sign.
struct ChallengeReactor: Reactor {
    enum Action: Sendable {
        case issue
    }

    enum Mutation: Sendable {
        case issued(Challenge)
    }

    enum State: Sendable, Equatable {
        /// `201` with the challenge.
        case issued(Challenge)
        /// `500`: no challenge issued (`IssueChallenge` returns one or throws, so only a fault leaves it).
        case error(APIError)
    }

    let issueChallenge: IssueChallenge

    func initialState(for action: Action) -> State { .error(.internalError) }

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .issue: [.issued(try await self.issueChallenge())]
        }
    }

    static func reduce(state: State, mutation: Mutation) -> State {
        switch mutation {
        case .issued(let challenge): .issued(challenge)
        }
    }
}

extension ChallengeReactor.State: ResponseState {
    func response() throws -> Response {
        switch self {
        case .issued(let challenge): try JSON.response(.created, IdentityResponses.Challenge(challenge))
        case .error(let error): try error.response()
        }
    }
}
