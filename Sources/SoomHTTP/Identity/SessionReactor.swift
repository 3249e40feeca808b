import Hummingbird
import SoomDomain

/// `POST /v1/sessions` (sign in with a `login` signature) and `DELETE /v1/sessions/current` (sign out).
struct SessionReactor: Reactor {
    enum Action: Sendable {
        case signIn(DeviceProof)
        case signOut(Authenticate.Caller)
    }

    enum Mutation: Sendable {
        case signedIn(SignedInAccount)
        case signedOut
    }

    enum State: Sendable, Equatable {
        /// `201 {"account", "session"}`.
        case signedIn(SignedInAccount)
        /// `204`.
        case signedOut
        /// `500`: a sign-in that made no session (`SignIn` returns one or throws, so only a fault leaves it).
        case error(APIError)
    }

    let signIn: SignIn
    let signOut: SignOut

    func initialState(for action: Action) -> State {
        switch action {
        case .signIn: .error(.internalError)
        case .signOut: .signedOut
        }
    }

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .signIn(let proof):
            return [.signedIn(try await self.signIn(proof))]
        case .signOut(let caller):
            try await self.signOut(caller)
            return [.signedOut]
        }
    }

    static func reduce(state: State, mutation: Mutation) -> State {
        switch mutation {
        case .signedIn(let signedIn): .signedIn(signedIn)
        case .signedOut: .signedOut
        }
    }
}

extension SessionReactor.State: ResponseState {
    func response() throws -> Response {
        switch self {
        case .signedIn(let signedIn): try JSON.response(.created, IdentityResponses.SignedIn(signedIn))
        case .signedOut: Response(status: .noContent)
        case .error(let error): try error.response()
        }
    }
}
