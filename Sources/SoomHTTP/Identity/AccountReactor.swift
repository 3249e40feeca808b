import Hummingbird
import SoomDomain

/// `POST /v1/accounts` (register a device) and `POST /v1/accounts/transfer` (move an account to a new device).
struct AccountReactor: Reactor {
    enum Action: Sendable {
        case register(RegisterAccount.Input)
        case transfer(code: String, proof: DeviceProof)
    }

    enum Mutation: Sendable {
        /// A new account, signed in on the registering device.
        case registered(SignedInAccount)
        /// The account, signed in on the new device.
        case transferred(SignedInAccount)
        /// The old device's key and sessions stopped working (part of every transfer).
        case oldDeviceSignedOut
    }

    enum State: Sendable, Equatable {
        /// A new session for the account (created or moved): `201 {"account", "session"}`.
        case signedIn(SignedInAccount)
    }

    let registerAccount: RegisterAccount
    let transferAccount: TransferAccount

    func mutate(action: Action) async throws -> [Mutation] {
        switch action {
        case .register(let input):
            return [.registered(try await self.registerAccount(input))]
        case .transfer(let code, let proof):
            return [.transferred(try await self.transferAccount(code: code, proof: proof)), .oldDeviceSignedOut]
        }
    }

    static func reduce(state: State?, mutation: Mutation) -> State? {
        switch mutation {
        case .registered(let signedIn), .transferred(let signedIn): .signedIn(signedIn)
        case .oldDeviceSignedOut: state
        }
    }

    static func counter(for mutation: Mutation) -> BusinessMetrics? {
        if case .registered = mutation { .signUp } else { nil }
    }
}

extension AccountReactor.State: ResponseState {
    func response() -> Response {
        switch self {
        case .signedIn(let signedIn): JSON.response(.created, writing: IdentityResponses.SignedIn(signedIn))
        }
    }
}
