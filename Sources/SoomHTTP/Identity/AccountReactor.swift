import Hummingbird
import SoomDomain

/// `POST /v1/accounts` (register a device) and `POST /v1/accounts/transfer` (move an account to a new device).
struct AccountReactor: Reactor {
    enum Action: Sendable {
        case register(RegisterAccount.Input)
        case transfer(code: String, proof: DeviceProof)
    }

    enum Mutation: Sendable {
        case registered(SignedInAccount)
        case transferred(SignedInAccount)
    }

    enum State: Sendable, Equatable {
        case pending
        /// A new session for the account (created or moved): `201 {"account", "session"}`.
        case signedIn(SignedInAccount)
    }

    let registerAccount: RegisterAccount
    let transferAccount: TransferAccount
    var initialState: State { .pending }

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .register(let input):
            return [.registered(try await self.registerAccount(input))]
        case .transfer(let code, let proof):
            return [.transferred(try await self.transferAccount(code: code, proof: proof))]
        }
    }

    static func count(_ mutation: Mutation) {
        if case .registered = mutation { BusinessMetrics.signUps.increment() }
    }

    static func reduce(state: State, mutation: Mutation) -> State {
        switch mutation {
        case .registered(let signedIn), .transferred(let signedIn): .signedIn(signedIn)
        }
    }
}

extension AccountReactor.State: ResponseState {
    func response() throws -> Response {
        switch self {
        case .pending: throw IncompleteReactorState(state: "\(self)")
        case .signedIn(let signedIn): try JSON.response(.created, IdentityResponses.SignedIn(signedIn))
        }
    }
}
