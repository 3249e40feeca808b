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
    }

    let signIn: SignIn
    let signOut: SignOut

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .signIn(let proof):
            return [.signedIn(try await self.signIn(proof))]
        case .signOut(let caller):
            try await self.signOut(caller)
            return [.signedOut]
        }
    }

    static func reduce(state: State?, mutation: Mutation) -> State? {
        switch mutation {
        case .signedIn(let signedIn): .signedIn(signedIn)
        case .signedOut: .signedOut
        }
    }
}

extension SessionReactor.State: ResponseState {
    func response() -> Response {
        switch self {
        case .signedIn(let signedIn): JSON.response(.created, writing: IdentityResponses.SignedIn(signedIn))
        case .signedOut: Response(status: .noContent)
        }
    }
}
