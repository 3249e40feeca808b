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
    }

    let issueChallenge: IssueChallenge

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .issue: [.issued(try await self.issueChallenge())]
        }
    }

    static func reduce(state: State?, mutation: Mutation) -> State? {
        switch mutation {
        case .issued(let challenge): .issued(challenge)
        }
    }
}

extension ChallengeReactor.State: ResponseState {
    func response() -> Response {
        switch self {
        case .issued(let challenge): JSON.response(.created, writing: IdentityResponses.Challenge(challenge), capacity: 256)
        }
    }
}
