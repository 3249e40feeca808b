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
        case pending
        case issued(Challenge)
    }

    let issueChallenge: IssueChallenge
    var initialState: State { .pending }

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
        case .pending: throw IncompleteReactorState(state: "\(self)")
        case .issued(let challenge): try JSON.response(.created, IdentityResponses.Challenge(challenge))
        }
    }
}
